// Epoch fencing at admission, on both back ends: once the controller Lease has moved on (another
// holder, leaseTransitions grown), a write that carries the old leader's epoch is refused by
// Palisade's webhook — PodProtector status, a protector, a Node's taints — with both epochs
// named and a cause the writer's runtime recognises; the refusal is counted and told as an
// Event on the Lease. Writes of the current epoch, and writes that carry none (people, the
// webhook's own buckets), pass. The console whose epoch went stale stops its loops.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStaleEpochRefusal } from '../../../lib/leader/events.js';
import { microTime } from '../../../lib/protection/buckets.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import type { ClusterSpec } from '../../kube/connection.js';
import type { ProtectionService } from '../../protection/service.js';
import { startProtectionOn } from '../../protection/test/standalone.js';
import { baseConfig, createProtector, scenario } from '../../protection/test/protectionHarness.js';
import { ControllerRuntime } from '../../runtime/runtime.js';
import { captureLogs } from '../../test/logCapture.js';
import { createReadyNamespace } from '../../test/namespaces.js';

const ELECTION = {
  namespace: 'kube-system',
  name: 'palisade-controller',
  leaseDurationSeconds: 3,
  renewDeadlineMs: 2_000,
  retryPeriodMs: 250,
};
const NS = 'epochs';
const P = { group: 'podseidon.kubewharf.io', version: 'v1alpha1', plural: 'podprotectors', namespace: NS };

let cluster: Awaited<ReturnType<typeof startScenario>>;
let runtime: ControllerRuntime;
let protection: ProtectionService;
let custom: k8s.CustomObjectsApi;
let leases: k8s.CoordinationV1Api;

beforeAll(async () => {
  cluster = await startScenario(scenario('epoch-fencing'));
  await createReadyNamespace(cluster.core, NS);
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  leases = cluster.kc.makeApiClient(k8s.CoordinationV1Api);
  const logs = captureLogs();
  runtime = new ControllerRuntime({ election: ELECTION, logger: logs.logger, identity: 'epochs-test' });
  const spec: ClusterSpec = { id: 'embedded', context: 'palisade-embedded', kc: cluster.kc };
  protection = await startProtectionOn(runtime, {
    config: baseConfig({ webhook: { port: 0, host: '127.0.0.1', register: true } }),
    clusters: [spec],
    logger: logs.logger,
  });
  await createProtector(custom, NS, 'web', { minAvailable: 1, selector: { app: 'web' } });
  await eventually(() => runtime.get('embedded')?.isLeader() === true, 'the console leads', 20_000);
}, 180_000);

afterAll(async () => {
  await protection?.stop();
  await runtime?.stop();
  await cluster?.stop();
});

const read = () => custom.getNamespacedCustomObject({ ...P, name: 'web' }) as Promise<any>;
const writeStatus = async (fieldManager?: string) => {
  const p = await read();
  return custom.replaceNamespacedCustomObjectStatus({
    ...P,
    name: 'web',
    body: { ...p, status: { ...(p.status ?? {}), cells: p.status?.cells ?? [] } },
    ...(fieldManager ? { fieldManager } : {}),
  });
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as { code?: number; body?: unknown },
  );
const text = (e: { body?: unknown } | undefined) =>
  typeof e?.body === 'string' ? e.body : JSON.stringify(e?.body);

describe('a Lease released under its leader', () => {
  it('is taken again as a new term: a new epoch, and the loops write with it', async () => {
    // found by server/test/fuzzControllers.int.test.ts: the leader took the released Lease with
    // one more transition but went on with its old epoch, so every write was refused as stale
    const manager = runtime.get('embedded')!;
    const before = manager.epoch()!;
    const release = async (): Promise<void> => {
      const lease = await leases.readNamespacedLease({ namespace: ELECTION.namespace, name: ELECTION.name });
      lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 };
      const e = await failure(
        leases.replaceNamespacedLease({ namespace: ELECTION.namespace, name: ELECTION.name, body: lease }),
      );
      if (e?.code === 409) return release();
      if (e) throw e;
    };
    await release();
    const now = await eventually(
      async () => {
        const l = await leases.readNamespacedLease({ namespace: ELECTION.namespace, name: ELECTION.name });
        const t = l.spec?.leaseTransitions ?? 0;
        return t > before && l.spec?.holderIdentity === 'epochs-test' && manager.isLeader() && t;
      },
      'the Lease taken again by the leader',
      20_000,
    );
    await eventually(() => manager.epoch() === now, `the leader at epoch ${now}, the Lease's`, 20_000);
    // its aggregator writes at the new epoch: a protector made now gets its status
    await createProtector(custom, NS, 'after-release', { minAvailable: 0, selector: { app: 'none' } });
    await eventually(
      async () => {
        const p: any = await custom.getNamespacedCustomObject({ ...P, name: 'after-release' });
        return p.status?.cells?.length > 0;
      },
      'after-release aggregated',
      20_000,
    );
  }, 60_000);
});

describe('a write of an older epoch than the Lease', () => {
  it('is refused at admission once another holder took the Lease; the stale console stops', async () => {
    // another Palisade takes over: a new holder, one more transition, a long lease. The leader
    // renews meanwhile (a 409 on the read Lease): read it again and take it over then
    const takeOver = async (): Promise<number> => {
      const lease = await leases.readNamespacedLease({ namespace: ELECTION.namespace, name: ELECTION.name });
      const transitions = lease.spec!.leaseTransitions ?? 0;
      lease.spec = {
        ...lease.spec,
        holderIdentity: 'newer-replica',
        leaseTransitions: transitions + 1,
        leaseDurationSeconds: 3600,
        // MicroTime: six fractional digits
        acquireTime: microTime(Date.now()) as unknown as Date,
        renewTime: microTime(Date.now()) as unknown as Date,
      };
      const e = await failure(
        leases.replaceNamespacedLease({ namespace: ELECTION.namespace, name: ELECTION.name, body: lease }),
      );
      if (e?.code === 409) return takeOver();
      if (e) throw e;
      return transitions;
    };
    const old = await takeOver();
    await eventually(
      () => runtime.get('embedded')?.isLeader() === false,
      'the old leader stops its loops',
      20_000,
    );

    // the status the old leader would write
    const stale = await failure(writeStatus(`palisade-leader-e${old}`));
    expect(stale?.code).toBe(409);
    expect(text(stale)).toContain(
      `this write carries epoch ${old}, but the Lease kube-system/palisade-controller is at epoch ${old + 1} (held by newer-replica)`,
    );
    expect(isStaleEpochRefusal(stale)).toBe(true);
    // a protector update, and the taints on a Node
    const p = await read();
    const spec = await failure(
      custom.replaceNamespacedCustomObject({
        ...P,
        name: 'web',
        body: p,
        fieldManager: `palisade-leader-e${old}`,
      }),
    );
    expect(isStaleEpochRefusal(spec)).toBe(true);
    const node = (await cluster.core.listNode()).items[0];
    // read right before the write: a heartbeat in between answers a plain 409 (the API server
    // checks the resourceVersion before admission), which says nothing about the epoch
    const taintOnce = async () => {
      const n = await cluster.core.readNode({ name: node.metadata!.name! });
      return failure(
        cluster.core.replaceNode({
          name: node.metadata!.name!,
          body: {
            ...n,
            spec: { ...n.spec, taints: [...(n.spec?.taints ?? []), { key: 'x', effect: 'NoSchedule' }] },
          },
          fieldManager: `palisade-leader-e${old}`,
        }),
      );
    };
    let taint = await taintOnce();
    for (let i = 0; i < 5 && taint?.code === 409 && !isStaleEpochRefusal(taint); i++)
      taint = await taintOnce();
    expect(isStaleEpochRefusal(taint), text(taint)).toBe(true);
    expect(
      (await cluster.core.readNode({ name: node.metadata!.name! })).spec?.taints ?? [],
    ).not.toContainEqual(expect.objectContaining({ key: 'x' }));

    // the incident tracker's record (palisade.dev incidents)
    const incident = await failure(
      custom.createClusterCustomObject({
        group: 'palisade.dev',
        version: 'v1alpha1',
        plural: 'incidents',
        body: {
          apiVersion: 'palisade.dev/v1alpha1',
          kind: 'Incident',
          metadata: { name: 'inc-20261130-045408' },
          spec: {
            title: 'stale',
            severity: 'SEV3',
            startedAt: '2026-11-30T04:54:08Z',
            declaredBy: 'palisade',
          },
        },
        fieldManager: `palisade-leader-e${old}`,
      }),
    );
    expect(isStaleEpochRefusal(incident), text(incident)).toBe(true);

    // the current epoch, and a write that carries none, pass
    expect(await failure(writeStatus(`palisade-leader-e${old + 1}`))).toBeUndefined();
    expect(await failure(writeStatus())).toBeUndefined();
    // no leader has held an epoch ahead of the Lease: refused too
    expect(isStaleEpochRefusal(await failure(writeStatus(`palisade-leader-e${old + 5}`)))).toBe(true);

    // counted, and told on the Lease
    const refused = (await runtime.metrics.staleWritesRefused.get()).values
      .filter((v) => v.labels.epoch === String(old))
      .reduce((n, v) => n + v.value, 0);
    expect(refused).toBeGreaterThanOrEqual(3);
    // the first test's hand-over may have refused a write of the epoch before (a loop that had
    // not yet seen the new Lease): look for this epoch's Event
    const event = await eventually(
      async () => {
        const list = await cluster.core.listNamespacedEvent({
          namespace: ELECTION.namespace,
          fieldSelector: `involvedObject.name=${ELECTION.name},reason=StaleLeaderWrite`,
        });
        return list.items.find((e) => e.action === `epoch-${old}`);
      },
      `a StaleLeaderWrite Event on the Lease for epoch ${old}`,
      20_000,
    );
    expect(event).toMatchObject({
      type: 'Warning',
      involvedObject: { kind: 'Lease', name: ELECTION.name },
      reportingInstance: 'epochs-test',
    });
    expect(event.message).toMatch(
      /^refused UPDATE podprotectors\/status\.podseidon\.kubewharf\.io epochs\/web: /,
    );
  }, 60_000);

  it('its acquisition was told on the Lease, with its epoch', async () => {
    const list = await cluster.core.listNamespacedEvent({
      namespace: ELECTION.namespace,
      fieldSelector: `involvedObject.name=${ELECTION.name},reason=LeaderElection`,
    });
    expect(list.items.map((e) => e.message)).toContain('epochs-test became leader (epoch 0)');
  });
});
