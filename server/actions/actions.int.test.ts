// The guarded-action seam against the embedded cluster (and, with PALISADE_CLUSTER=real, against
// etcd + kube-apiserver + kube-controller-manager): seed 000's story — a StatefulSet pod with an
// RWO volume on a partitioned node — driven through actions.preview / actions.perform over HTTP,
// with the cluster's modes, optimistic concurrency, dry runs, Events and the audit list.
import { pinnedDeployment } from '../../testenv/fixtures/deployment.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { createTRPCClient, httpLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_OF_SERVICE_TAINT } from '../../lib/fencing/types.js';
import { KUBECTL_FORCE_DELETE_WARNING } from '../../lib/guard/types.js';
import { eventually, untilNoConflict } from '../../sim/apiserver/test/harness.js';
import { readyCondition, rwoDatabaseScenario, startScenario } from '../../sim/test/clusterHarness.js';
import { type Console, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import type { ActionsAppRouter } from '../trpc/actions.js';
import { tokenOf } from '../test/client.js';
import { FENCE_API } from './live.js';
import {
  ensureFenceCrd,
  ensureIncidentCrd,
  fenceInPhase,
  readFenceObject,
  setFencePhase,
} from './test/fences.js';
import { palisadeKubeconfig } from '../test/identity.js';

type Cluster = Awaited<ReturnType<typeof startScenario>>;
let c: Cluster;
let dir: string;
let consoleServer: Console;
let trpc: ReturnType<typeof createTRPCClient<ActionsAppRouter>>;
const CLUSTER = 'palisade-embedded';
/** the user of the embedded clusters' admin token, on both back ends */
const ADMIN = 'palisade-admin';
const NS = 'shop';

// no force detach during the file (kube-controller-manager's is 6 min): the detach tests act on
// the partitioned node's VolumeAttachment, which the tiny 4 s timeout would remove first on a
// machine slow enough to take 4 s between the force delete and them
const scenario = rwoDatabaseScenario({
  name: 'actions-test',
  namespace: NS,
  durations: { forceDetachTimeout: '600s' },
});

beforeAll(async () => {
  c = await startScenario(scenario);
  await ensureFenceCrd(c.kc);
  await ensureIncidentCrd(c.kc);
  dir = await mkdtemp(join(tmpdir(), 'palisade-actions-'));
  await writeFile(join(dir, 'kubeconfig'), c.kc.exportConfig());
  const [embedded] = await clustersFromKubeconfig(await palisadeKubeconfig(join(dir, 'kubeconfig')));
  consoleServer = await startConsole({
    clusters: [
      embedded,
      { ...embedded, id: 'frozen', mode: 'read-only' as const },
      { ...embedded, id: 'guarded', mode: 'protected' as const },
    ],
    ui: false,
    // the test plays the fencing controller's part (NodeFence phases): the seam is under test
    fencing: false,
    // ...and writes its own Incident: no tracker declaring another for the partitioned node
    incidents: false,
  });
  // actions.* through the console's own gate, signed in with the cluster admin's token
  trpc = createTRPCClient<ActionsAppRouter>({
    links: [
      httpLink({
        url: `${consoleServer.url}/api/trpc`,
        headers: { authorization: `Bearer ${tokenOf(c.kc)}` },
      }),
    ],
  });
  await Promise.all([...consoleServer.clusters.values()].map((x) => x.synced()));
}, 120_000);

afterAll(async () => {
  await consoleServer?.stop();
  await c?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const readPod = (name: string) =>
  c.core.readNamespacedPod({ namespace: NS, name }).catch((e) => {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  });

let node: string;
let nodeUid: string;
let web0: k8s.V1Pod;

const force = { action: 'forceDeletePod' as const, cluster: CLUSTER, namespace: NS, name: 'web-0' };

describe('force delete of a StatefulSet pod on a partitioned node', () => {
  beforeAll(async () => {
    const running = await eventually(
      async () => {
        const p = await readPod('web-0');
        return p?.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ? p : undefined;
      },
      'web-0 running and ready',
      30_000,
    );
    node = running.spec!.nodeName!;
    nodeUid = (await c.core.readNode({ name: node })).metadata!.uid!;
    c.infra.partition(node);
    await eventually(
      async () => readyCondition(await c.core.readNode({ name: node }))?.status === 'Unknown',
      'node Unknown',
      15_000,
    );
    // the taint manager deletes it after the toleration: wait, so it stays put from here on
    web0 = await eventually(
      async () => {
        const p = await readPod('web-0');
        return p?.metadata?.deletionTimestamp ? p : undefined;
      },
      'web-0 Terminating',
      20_000,
    );
  }, 90_000);

  it('preview: unsafe, with the reasons, the kubectl warning, the node not fenced and a dry run', async () => {
    const p = await trpc.actions.preview.query(force);
    expect(p.verdict.safe).toBe(false);
    expect(p.target).toMatchObject({ kind: 'Pod', uid: web0.metadata!.uid });
    const reasons = p.verdict.safe ? [] : p.verdict.reasons;
    expect(reasons.join('\n')).toMatch(/unreachable \(Ready=Unknown\) and not fenced/);
    expect(reasons.join('\n')).toMatch(/StatefulSet web/);
    expect(reasons.join('\n')).toMatch(/ReadWriteOnce volume .* is still attached/);
    expect(p.verdict.warnings).toEqual([KUBECTL_FORCE_DELETE_WARNING]);
    expect(p.node).toMatchObject({ name: node, exists: true, ready: 'Unknown', fenced: false });
    expect(p.needs).toEqual({ name: 'web-0', typedName: true, reason: true });
    expect(p.dryRun).toMatchObject({ ran: true, ok: true });
    expect(p.dryRun.message).toMatch(/would be removed from the API/);
    expect(p.destructive).toBe(true);
    expect((await readPod('web-0'))?.metadata?.uid).toBe(web0.metadata!.uid);
  });

  it('preview: names a PodProtector of the pod that is at or below its floor (issue 25, finding 7)', async () => {
    const custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
    const api = {
      group: 'podseidon.kubewharf.io',
      version: 'v1alpha1',
      namespace: NS,
      plural: 'podprotectors',
    };
    // no aggregation yet: nothing counts as available, below a floor of 1
    await custom.createNamespacedCustomObject({
      ...api,
      body: {
        apiVersion: 'podseidon.kubewharf.io/v1alpha1',
        kind: 'PodProtector',
        metadata: { name: 'web-floor' },
        spec: { minAvailable: 1, selector: { matchLabels: web0.metadata!.labels } },
      },
    });
    try {
      const p = await trpc.actions.preview.query(force);
      expect(p.verdict.notes).toContain(
        `PodProtector ${NS}/web-floor is below its floor (0 available, minAvailable 1): the workload can lose no other pod now; the deletion webhook admits this one only if the pod no longer counts as available (the dry run asks it)`,
      );
    } finally {
      await custom.deleteNamespacedCustomObject({ ...api, name: 'web-floor' });
    }
    const p = await trpc.actions.preview.query(force);
    expect(p.verdict.notes.filter((n) => n.startsWith('PodProtector'))).toEqual([]);
  });

  it('without confirmation it is refused, listing the reasons, and the pod still exists', async () => {
    await expect(trpc.actions.perform.mutate(force)).rejects.toThrow(
      /Force delete pod web-0 is unsafe: \(1\) node .* not fenced.*\(2\) .*StatefulSet web.*type "web-0" to confirm; give a reason/,
    );
    await expect(trpc.actions.perform.mutate({ ...force, confirm: 'web-0' })).rejects.toThrow(
      /give a reason\)/,
    );
    await expect(
      trpc.actions.perform.mutate({ ...force, confirm: 'web-1', reason: 'stuck' }),
    ).rejects.toThrow(/the confirmation "web-1" does not match "web-0"/);
    expect((await readPod('web-0'))?.metadata?.uid).toBe(web0.metadata!.uid);
  });

  it('a read-only cluster refuses, even a dry run; a protected one wants the name even when safe', async () => {
    const frozen = { ...force, cluster: 'frozen', confirm: 'web-0', reason: 'stuck' };
    await expect(trpc.actions.perform.mutate(frozen)).rejects.toThrow(/cluster "frozen" is read-only/);
    await expect(trpc.actions.perform.mutate({ ...frozen, dryRun: true })).rejects.toThrow(/read-only/);
    const p = await trpc.actions.preview.query({ ...force, cluster: 'frozen' });
    expect(p.refusal).toMatch(/read-only/);
    expect(p.dryRun).toMatchObject({ ran: false });
    await expect(trpc.actions.perform.mutate({ ...force, cluster: 'guarded' })).rejects.toThrow(
      /cluster "guarded" is protected: confirm by typing "web-0"/,
    );
    expect((await readPod('web-0'))?.metadata?.uid).toBe(web0.metadata!.uid);
  });

  it('a dry run answers what would happen and changes nothing', async () => {
    const before = (await readPod('web-0'))!;
    const r = await trpc.actions.perform.mutate({ ...force, dryRun: true, confirm: 'web-0', reason: 'try' });
    expect(r).toMatchObject({ dryRun: true, overridden: true, recorded: false });
    expect(r.outcome).toMatch(/would be removed from the API \(server-side dry run: nothing changed\)/);
    const after = (await readPod('web-0'))!;
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    const events = await c.core.listNamespacedEvent({ namespace: NS });
    expect(events.items.filter((e) => e.reason === 'PalisadeForceDelete')).toEqual([]);
  });

  it('a stale resourceVersion is a CONFLICT: changed since you looked', async () => {
    const seen = (await trpc.actions.preview.query(force)).target;
    // someone else changes the pod after the person looked
    await c.core.patchNamespacedPod(
      { namespace: NS, name: 'web-0', body: { metadata: { labels: { touched: 'yes' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const err = await trpc.actions.perform
      .mutate({
        ...force,
        confirm: 'web-0',
        reason: 'stuck',
        expect: { uid: seen.uid, resourceVersion: seen.resourceVersion },
      })
      .catch((e) => e);
    expect(err.data?.code).toBe('CONFLICT');
    expect(err.message).toMatch(/Pod web-0 changed since you looked; review and try again/);
    expect((await readPod('web-0'))?.metadata?.uid).toBe(web0.metadata!.uid);
    const other = await trpc.actions.perform
      .mutate({ ...force, confirm: 'web-0', reason: 'stuck', expect: { uid: 'another-uid' } })
      .catch((e) => e);
    expect(other.data?.code).toBe('CONFLICT');
    expect(other.message).toMatch(/deleted and created again/);
  });

  it('with the name typed and a reason it is deleted at once, and an Event says who, why and overridden', async () => {
    const seen = (await trpc.actions.preview.query(force)).target;
    const r = await trpc.actions.perform.mutate({
      ...force,
      confirm: 'web-0',
      reason: 'db-0 stuck for 20 min, vendor confirmed the host is dead',
      expect: { uid: seen.uid, resourceVersion: seen.resourceVersion },
    });
    expect(r).toMatchObject({ dryRun: false, overridden: true, recorded: true });
    expect(r.outcome).toMatch(/was removed from the API/);
    const now = await readPod('web-0');
    expect(now?.metadata?.uid).not.toBe(web0.metadata!.uid);
    const events = await c.core.listNamespacedEvent({
      namespace: NS,
      fieldSelector: `involvedObject.uid=${web0.metadata!.uid}`,
    });
    const mine = events.items.filter((e) => e.reason === 'PalisadeForceDelete');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      type: 'Warning',
      source: { component: 'palisade-console' },
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: NS },
    });
    expect(mine[0].message).toMatch(
      new RegExp(
        `^force-deleted pod shop/web-0 on node ${node} .* \\| overridden: node ${node} is unreachable.* \\| by: ${ADMIN} \\| why: db-0 stuck for 20 min, vendor confirmed the host is dead$`,
      ),
    );
    expect(mine[0].metadata?.annotations?.['palisade.dev/actor']).toBe(ADMIN);
  });
});

describe('detach', () => {
  let attachment: string;

  beforeAll(async () => {
    const vas = await c.storage.listVolumeAttachment();
    attachment = vas.items.find((v) => v.spec.nodeName === node)!.metadata!.name!;
  });

  it('of a volume on the partitioned, unfenced node is unsafe and refused without confirmation', async () => {
    const input = { action: 'detachVolume' as const, cluster: CLUSTER, attachment };
    const p = await trpc.actions.preview.query(input);
    expect(p.verdict.safe).toBe(false);
    expect(p.verdict.safe ? '' : p.verdict.reasons.join('\n')).toMatch(
      /unreachable \(Ready=Unknown\) and not fenced: the API cannot tell/,
    );
    await expect(trpc.actions.perform.mutate(input)).rejects.toThrow(/Detach volume .* is unsafe/);
    expect(
      (await c.storage.readVolumeAttachment({ name: attachment })).metadata?.deletionTimestamp,
    ).toBeFalsy();
  });

  it('is safe once the node is powered off and fenced: done without confirmation, recorded as safe', async () => {
    c.infra.powerOff(node);
    await fenceInPhase(c.kc, node, nodeUid, 'Fenced');
    const input = { action: 'detachVolume' as const, cluster: CLUSTER, attachment };
    const p = await trpc.actions.preview.query(input);
    expect(p.verdict.safe).toBe(true);
    expect(p.node).toMatchObject({ fenced: true });
    expect(p.needs).toMatchObject({ typedName: false, reason: false });
    const r = await trpc.actions.perform.mutate({ ...input, expect: { uid: p.target.uid } });
    expect(r).toMatchObject({ overridden: false, recorded: true });
    await eventually(
      async () =>
        !(await c.storage.listVolumeAttachment()).items.some((v) => v.metadata?.uid === p.target.uid),
      'the VolumeAttachment gone',
    );
    const ev = await c.core.listNamespacedEvent({ namespace: 'default' });
    const mine = ev.items.find((e) => e.reason === 'PalisadeDetach' && e.involvedObject.name === attachment);
    expect(mine).toMatchObject({ type: 'Normal', involvedObject: { kind: 'VolumeAttachment' } });
    expect(mine?.message).toMatch(/ \| safe \| by: palisade-admin \|/);
  });
});

describe('the out-of-service taint', () => {
  let nodeVersionBeforeTaint: string;
  const input = () => ({ action: 'removeOutOfServiceTaint' as const, cluster: CLUSTER, node });
  // kube-apiserver drops an emptied taint list altogether (omitempty)
  const tainted = async () =>
    (await c.core.readNode({ name: node })).spec?.taints?.some((t) => t.key === OUT_OF_SERVICE_TAINT.key) ??
    false;

  it('on a fenced node that is down: removing it is unsafe and refused without confirmation', async () => {
    nodeVersionBeforeTaint = (await c.core.readNode({ name: node })).metadata!.resourceVersion!;
    await untilNoConflict(async () => {
      const n = await c.core.readNode({ name: node });
      const taints = [...(n.spec?.taints ?? []), { ...OUT_OF_SERVICE_TAINT }];
      return c.core.replaceNode({ name: node, body: { ...n, spec: { ...n.spec, taints } } });
    }, 'the out-of-service taint added');
    await setFencePhase(c.kc, node, nodeUid, 'Releasing');
    const p = await trpc.actions.preview.query(input());
    expect(p.verdict.safe ? [] : p.verdict.reasons).toHaveLength(2);
    // confirmed, but on a version of the node from before the taint: the patch is refused
    const stale = { resourceVersion: nodeVersionBeforeTaint };
    const err = await trpc.actions.perform
      .mutate({ ...input(), confirm: node, reason: 'test', expect: stale })
      .catch((e) => e);
    expect(err.data?.code).toBe('CONFLICT');
    await expect(trpc.actions.perform.mutate(input())).rejects.toThrow(
      /Remove out-of-service taint .* is unsafe/,
    );
    expect(await tainted()).toBe(true);
  });

  it('once the node is back and the fence Recovered it is removed (a patch conditional on the resourceVersion)', async () => {
    c.infra.powerOn(node);
    c.infra.heal(node);
    await eventually(
      async () => readyCondition(await c.core.readNode({ name: node }))?.status === 'True',
      'node Ready again',
      20_000,
    );
    await setFencePhase(c.kc, node, nodeUid, 'Recovered');
    // the kubelet writes its node too: a conflict between read and write is answered, and retried
    await eventually(async () => {
      try {
        return await trpc.actions.perform.mutate(input());
      } catch (e) {
        if ((e as { data?: { code?: string } }).data?.code === 'CONFLICT') return undefined;
        throw e;
      }
    }, 'the taint removed');
    expect(await tainted()).toBe(false);
  });
});

describe('fence approval and cancellation', () => {
  let others: k8s.V1Node[];
  beforeAll(async () => {
    others = (await c.core.listNode()).items.filter((n) => n.metadata?.name !== node);
  });

  it('approving a fence of a Ready node is unsafe; confirmed, it writes approvedBy', async () => {
    const target = others[0];
    const name = target.metadata!.name!;
    await fenceInPhase(c.kc, name, target.metadata!.uid!, 'AwaitingApproval');
    const input = { action: 'approveFence' as const, cluster: CLUSTER, fence: name };
    await expect(trpc.actions.perform.mutate(input)).rejects.toThrow(
      /Approve fence .* is unsafe: \(1\) node .* is Ready again/,
    );
    expect((await readFenceObject(c.kc, name)).spec.approvedBy).toBeUndefined();
    // a merge patch carrying a resourceVersion the fence has moved past is refused too
    const seen = (await trpc.actions.preview.query(input)).target;
    await c.kc
      .makeApiClient(k8s.CustomObjectsApi)
      .patchClusterCustomObject(
        { ...FENCE_API, name, body: { metadata: { labels: { touched: 'yes' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    const stale = await trpc.actions.perform
      .mutate({ ...input, confirm: name, reason: 'r', expect: { resourceVersion: seen.resourceVersion } })
      .catch((e) => e);
    expect(stale.data?.code).toBe('CONFLICT');
    expect(stale.message).toMatch(/NodeFence .* changed since you looked/);
    expect((await readFenceObject(c.kc, name)).spec.approvedBy).toBeUndefined();
    const r = await trpc.actions.perform.mutate({ ...input, confirm: name, reason: 'the BMC shows it hung' });
    expect(r).toMatchObject({ overridden: true, recorded: true });
    const f = await readFenceObject(c.kc, name);
    expect(f.spec.approvedBy).toBe(ADMIN);
    expect(Date.parse(f.spec.approvedAt!)).toBeGreaterThan(0);
    // approving twice makes no sense: refused whatever is typed
    await expect(trpc.actions.perform.mutate({ ...input, confirm: name, reason: 'again' })).rejects.toThrow(
      /refused: NodeFence .* is already approved by/,
    );
  });

  it('cancelling is refused once the agent has run, and records who and why before', async () => {
    const target = others[1];
    const name = target.metadata!.name!;
    await fenceInPhase(c.kc, name, target.metadata!.uid!, 'Fencing');
    const input = { action: 'cancelFence' as const, cluster: CLUSTER, fence: name, reason: 'false alarm' };
    const err = await trpc.actions.perform.mutate(input).catch((e) => e);
    expect(err.data?.code).toBe('PRECONDITION_FAILED');
    expect(err.message).toMatch(/Cancel fence .* refused: NodeFence .* is Fencing: the fence agent has run/);
    await setFencePhase(c.kc, name, target.metadata!.uid!, 'AwaitingApproval');
    const r = await trpc.actions.perform.mutate(input);
    expect(r).toMatchObject({ overridden: false, recorded: true });
    expect((await readFenceObject(c.kc, name)).spec.cancelRequested).toMatchObject({
      by: ADMIN,
      reason: 'false alarm',
    });
  });
});

describe('input and audit', () => {
  it.each([
    [{ action: 'forceDeletePod', cluster: CLUSTER, name: 'x' }, /namespace:/],
    [{ action: 'cancelFence', cluster: CLUSTER, fence: 'x' }, /reason: /],
    [
      { action: 'cancelFence', cluster: CLUSTER, fence: 'x', reason: '  ' },
      /reason: a reason is required to cancel a fence/,
    ],
    [{ action: 'explode', cluster: CLUSTER }, /action must be one of forceDeletePod/],
    [
      { action: 'detachVolume', cluster: CLUSTER, attachment: 'x', reason: 'r'.repeat(501) },
      /reason: reason is longer than 500/,
    ],
  ])('rejects %j naming the field', async (input, message) => {
    await expect(trpc.actions.perform.mutate(input as never)).rejects.toThrow(message);
  });

  it('names what is missing', async () => {
    await expect(
      trpc.actions.preview.query({ action: 'forceDeletePod', cluster: CLUSTER, namespace: NS, name: 'nope' }),
    ).rejects.toThrow(/pod shop\/nope not found/);
    await expect(
      trpc.actions.preview.query({ action: 'approveFence', cluster: CLUSTER, fence: 'nope' }),
    ).rejects.toThrow(/NodeFence nope not found/);
  });

  it('audit lists the recorded actions newest first, with filters', async () => {
    const rows = await eventually(async () => {
      const r = await trpc.actions.audit.query({ cluster: CLUSTER });
      return r.length >= 5 ? r : undefined;
    }, 'five audit rows from the event cache');
    expect(rows.map((r) => r.action)).toEqual([
      'cancelFence',
      'approveFence',
      'removeOutOfServiceTaint',
      'detachVolume',
      'forceDeletePod',
    ]);
    expect(rows.at(-1)).toMatchObject({
      outcome: 'overridden',
      by: ADMIN,
      why: 'db-0 stuck for 20 min, vendor confirmed the host is dead',
      target: { kind: 'Pod', namespace: NS, name: 'web-0' },
    });
    const safeOnes = await trpc.actions.audit.query({ cluster: CLUSTER, outcome: 'safe' });
    expect(safeOnes.map((r) => r.action)).toEqual(['cancelFence', 'removeOutOfServiceTaint', 'detachVolume']);
    const found = await trpc.actions.audit.query({ cluster: CLUSTER, text: 'vendor confirmed' });
    expect(found.map((r) => r.action)).toEqual(['forceDeletePod']);
  });
});

describe('the incident record: take command, post an update, set the severity, resolve', () => {
  const INC = 'inc-20261130-045408';
  const API = { group: 'palisade.dev', version: 'v1alpha1', plural: 'incidents' };
  const custom = () => c.kc.makeApiClient(k8s.CustomObjectsApi);
  const read = async () =>
    (await custom().getClusterCustomObject({ ...API, name: INC })) as {
      metadata: { resourceVersion: string };
      spec: Record<string, unknown> & { updates?: { kind: string; by: string; text: string }[] };
    };

  beforeAll(async () => {
    await custom().createClusterCustomObject({
      ...API,
      body: {
        apiVersion: 'palisade.dev/v1alpha1',
        kind: 'Incident',
        metadata: { name: INC },
        spec: {
          title: 'zone-a down',
          severity: 'SEV2',
          startedAt: '2026-11-30T04:54:08Z',
          declaredBy: 'palisade',
        },
      },
    });
  });

  it('take command: safe, written as the person with an update, recorded as an Event', async () => {
    const p = await trpc.actions.preview.query({
      action: 'takeIncidentCommand',
      cluster: CLUSTER,
      incident: INC,
    });
    expect(p).toMatchObject({ verdict: { safe: true }, target: { kind: 'Incident', name: INC } });
    expect(p.dryRun).toMatchObject({ ran: true, ok: true });
    expect((await read()).spec.commander).toBeUndefined();
    const done = await trpc.actions.perform.mutate({
      action: 'takeIncidentCommand',
      cluster: CLUSTER,
      incident: INC,
      expect: { resourceVersion: p.target.resourceVersion },
    });
    expect(done).toMatchObject({ dryRun: false, overridden: false, recorded: true });
    const after = await read();
    expect(after.spec.commander).toBe(ADMIN);
    expect(after.spec.updates?.at(-1)).toMatchObject({
      kind: 'Commander',
      by: ADMIN,
      text: 'takes command',
    });
    await expect(
      trpc.actions.perform.mutate({ action: 'takeIncidentCommand', cluster: CLUSTER, incident: INC }),
    ).rejects.toThrow(/you already command incident/);
  });

  it('a status update needs its text, and a stale version is a CONFLICT', async () => {
    const base = { action: 'postIncidentUpdate' as const, cluster: CLUSTER, incident: INC };
    await expect(trpc.actions.perform.mutate({ ...base, reason: ' ' })).rejects.toThrow(
      /the status update needs its text/,
    );
    const before = (await read()).metadata.resourceVersion;
    await trpc.actions.perform.mutate({ ...base, reason: 'orders-db failing over to zone-b' });
    await expect(
      trpc.actions.perform.mutate({ ...base, reason: 'again', expect: { resourceVersion: before } }),
    ).rejects.toThrow(/changed since/);
    expect((await read()).spec.updates?.map((u) => u.text)).toEqual([
      'takes command',
      'orders-db failing over to zone-b',
    ]);
  });

  it('set the severity, then resolve with a reason; a resolved incident refuses changes but takes a note', async () => {
    await trpc.actions.perform.mutate({
      action: 'setIncidentSeverity',
      cluster: CLUSTER,
      incident: INC,
      severity: 'SEV1',
    });
    expect((await read()).spec.severity).toBe('SEV1');
    await expect(
      trpc.actions.perform.mutate({
        action: 'resolveIncident',
        cluster: CLUSTER,
        incident: INC,
        reason: ' ',
      }),
    ).rejects.toThrow(/a reason is required to resolve an incident/);
    await trpc.actions.perform.mutate({
      action: 'resolveIncident',
      cluster: CLUSTER,
      incident: INC,
      reason: 'mitigated: the follow-up is in the postmortem',
    });
    const spec = (await read()).spec;
    expect(spec).toMatchObject({ resolvedBy: ADMIN, resolvedAt: expect.stringMatching(/Z$/) });
    expect(spec.updates?.map((u) => u.kind)).toEqual(['Commander', 'Status', 'Severity', 'Resolved']);
    await expect(
      trpc.actions.perform.mutate({
        action: 'setIncidentSeverity',
        cluster: CLUSTER,
        incident: INC,
        severity: 'SEV3',
        reason: 'x',
      }),
    ).rejects.toThrow(/is resolved: declare a new one/);
    // a note for the postmortem (the timeline's Add note): added, and the incident stays resolved
    await trpc.actions.perform.mutate({
      action: 'postIncidentUpdate',
      cluster: CLUSTER,
      incident: INC,
      reason: 'postmortem: the rack PDU failed first',
    });
    const after = (await read()).spec;
    expect(after.resolvedAt).toBe(spec.resolvedAt);
    expect(after.updates?.at(-1)).toMatchObject({
      kind: 'Status',
      by: ADMIN,
      text: 'postmortem: the rack PDU failed first',
    });
    const events = await eventually(async () => {
      const evs = await c.core.listNamespacedEvent({ namespace: 'default' });
      const mine = evs.items.filter((e) => e.involvedObject.name === INC).map((e) => e.reason);
      return mine.length >= 5 ? mine : undefined;
    }, 'an Event per incident action');
    expect(events).toEqual(
      expect.arrayContaining([
        'PalisadeIncidentCommand',
        'PalisadeIncidentUpdate',
        'PalisadeIncidentSeverity',
        'PalisadeIncidentResolved',
      ]),
    );
  });
});

describe('declare an incident by hand', () => {
  const API = { group: 'palisade.dev', version: 'v1alpha1', plural: 'incidents' };
  const custom = () => c.kc.makeApiClient(k8s.CustomObjectsApi);
  const declare = { action: 'declareIncident' as const, cluster: CLUSTER, severity: 'SEV2' as const };
  const open = async () =>
    ((await custom().listClusterCustomObject(API)) as { items: any[] }).items.filter(
      (i) => !i.spec.resolvedAt,
    );

  it('with none open: safe, created with the person as declarer and commander, the reason its title', async () => {
    // the record's own test resolved its incident: none is open
    expect(await open()).toEqual([]);
    const p = await trpc.actions.preview.query(declare);
    expect(p.verdict.safe).toBe(true);
    expect(p.needs).toMatchObject({ reason: true, typedName: false });
    expect(p.dryRun).toMatchObject({ ran: true, ok: true });
    expect(p.dryRun.message).toMatch(/^Incident inc-\d{8}-\d{6} would be declared \(server-side dry run/);
    expect(await open()).toEqual([]);
    await expect(trpc.actions.perform.mutate({ ...declare, reason: '  ' })).rejects.toThrow(
      /a reason is required to declare/,
    );
    const done = await trpc.actions.perform.mutate({
      ...declare,
      reason: 'checkout errors reported by users\nno node is down',
    });
    expect(done.outcome).toMatch(
      /^Incident (inc-\d{8}-\d{6}) is declared \(SEV2\), with you as its commander$/,
    );
    const name = done.outcome.split(' ')[1]!;
    expect(done.target).toMatchObject({ kind: 'Incident', name, uid: expect.stringMatching(/.+/) });
    const [i] = await open();
    expect(i.metadata.name).toBe(name);
    expect(i.spec).toMatchObject({
      title: 'checkout errors reported by users',
      severity: 'SEV2',
      declaredBy: ADMIN,
      commander: ADMIN,
      updates: [{ by: ADMIN, kind: 'Declared', text: 'checkout errors reported by users\nno node is down' }],
    });
    const ev = await eventually(async () => {
      const evs = await c.core.listNamespacedEvent({ namespace: 'default' });
      return evs.items.find((e) => e.involvedObject.name === name && e.reason === 'PalisadeIncidentDeclared');
    }, 'the declaration Event');
    expect(ev.involvedObject).toMatchObject({ kind: 'Incident', uid: i.metadata.uid });

    // one open at a time: a second is refused, naming where to write
    const again = await trpc.actions.preview.query(declare);
    expect(again.refusal).toMatch(
      new RegExp(`^incident ${name} is open \\(since .*\\): post a status update to it`),
    );
    await trpc.actions.perform.mutate({
      action: 'resolveIncident',
      cluster: CLUSTER,
      incident: name,
      reason: 'done',
    });
  });
});

describe('cordon, uncordon and drain a node (the Eviction API: budgets decide)', () => {
  let target: string;
  const apps = () => c.kc.makeApiClient(k8s.AppsV1Api);
  const policy = () => c.kc.makeApiClient(k8s.PolicyV1Api);
  const onNode = async () =>
    (await c.core.listNamespacedPod({ namespace: NS, fieldSelector: `spec.nodeName=${target}` })).items;
  const unschedulable = async () => (await c.core.readNode({ name: target })).spec?.unschedulable === true;

  beforeAll(async () => {
    // a Ready node other than the partitioned one
    const nodes = (await c.core.listNode()).items;
    target = nodes.find((n) => n.metadata!.name !== node && readyCondition(n)?.status === 'True')!.metadata!
      .name!;
    const labels = { app: 'drainme' };
    await apps().createNamespacedDeployment({ namespace: NS, body: pinnedDeployment('drainme', target) });
    // one of the two may go at a time: the second eviction is the budget's 429
    await policy().createNamespacedPodDisruptionBudget({
      namespace: NS,
      body: { metadata: { name: 'drainme' }, spec: { minAvailable: 1, selector: { matchLabels: labels } } },
    });
    // a pod no controller re-creates: draining it needs an override
    await c.core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'bare' },
        spec: { nodeName: target, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] },
      },
    });
    await eventually(
      async () => {
        const pods = await onNode();
        const running = pods.filter((p) => p.status?.phase === 'Running');
        const pdb = await policy().readNamespacedPodDisruptionBudget({ namespace: NS, name: 'drainme' });
        return running.length >= 3 && pdb.status?.disruptionsAllowed === 1;
      },
      'drainme x2 and bare running, the budget allowing one disruption',
      60_000,
    );
  }, 90_000);

  it('cordon: safe, a patch of spec.unschedulable, recorded; cordoning again is refused', async () => {
    const p = await trpc.actions.preview.query({ action: 'cordonNode', cluster: CLUSTER, node: target });
    expect(p.verdict.safe).toBe(true);
    expect(p.dryRun, p.dryRun.message).toMatchObject({ ran: true, ok: true });
    expect(await unschedulable()).toBe(false);
    const done = await trpc.actions.perform.mutate({ action: 'cordonNode', cluster: CLUSTER, node: target });
    expect(done.outcome).toBe(`node ${target} was cordoned`);
    expect(await unschedulable()).toBe(true);
    const again = await trpc.actions.preview.query({ action: 'cordonNode', cluster: CLUSTER, node: target });
    expect(again.refusal).toMatch(/already cordoned/);
    const un = await trpc.actions.perform.mutate({ action: 'uncordonNode', cluster: CLUSTER, node: target });
    expect(un.outcome).toBe(`node ${target} was uncordoned`);
    expect(await unschedulable()).toBe(false);
    const reasons = await eventually(async () => {
      const evs = await c.core.listNamespacedEvent({ namespace: 'default' });
      const mine = evs.items.filter((e) => e.involvedObject.name === target).map((e) => e.reason);
      return mine.includes('PalisadeNodeUncordoned') ? mine : undefined;
    }, 'the cordon and uncordon Events');
    expect(reasons).toContain('PalisadeNodeCordoned');
  });

  it('drain: a bare pod makes it unsafe; confirmed, it cordons and evicts, and the budget refuses one', async () => {
    const p = await trpc.actions.preview.query({ action: 'drainNode', cluster: CLUSTER, node: target });
    expect(p.verdict.safe).toBe(false);
    expect(p.verdict.safe ? [] : p.verdict.reasons).toEqual([
      expect.stringMatching(/pod shop\/bare has no controller: evicted, it is gone for good/),
    ]);
    // the dry run asks the API server for every eviction and changes nothing
    expect(p.dryRun.ok).toBe(true);
    // (web-0 may be there too, by now)
    expect(p.dryRun.message).toMatch(/(\d) of \1 pods would be evicted \(server-side dry run/);
    expect(await unschedulable()).toBe(false);
    await expect(
      trpc.actions.perform.mutate({ action: 'drainNode', cluster: CLUSTER, node: target }),
    ).rejects.toThrow(/Drain node .* is unsafe: \(1\) pod shop\/bare has no controller/);

    const done = await trpc.actions.perform.mutate({
      action: 'drainNode',
      cluster: CLUSTER,
      node: target,
      confirm: target,
      reason: 'rack maintenance',
    });
    expect(done.overridden).toBe(true);
    expect(done.outcome).toMatch(
      new RegExp(
        `^node ${target} was cordoned; \\d of \\d pods evicted; shop/drainme-\\S+ not evicted: .*disruption budget`,
      ),
    );
    expect(await unschedulable()).toBe(true);
    // the record says what the drain did, refusal included
    const ev = await eventually(async () => {
      const evs = await c.core.listNamespacedEvent({ namespace: 'default' });
      return evs.items.find((e) => e.involvedObject.name === target && e.reason === 'PalisadeNodeDrained');
    }, 'the drain Event');
    expect(ev.message).toMatch(/drained node .*: node .* was cordoned; \d of \d pods evicted; .*not evicted/);
    // the bare pod is gone; one drainme pod still runs there (its budget held it)
    await eventually(
      async () => {
        const left = (await onNode()).filter((x) => !x.metadata?.deletionTimestamp);
        return left.length === 1 && left[0]!.metadata!.name!.startsWith('drainme-');
      },
      'one drainme pod left on the node',
      30_000,
    );
  });
});

describe('evict one pod (the Placement rebalance: the Eviction API, budgets decide)', () => {
  const apps = () => c.kc.makeApiClient(k8s.AppsV1Api);
  const policy = () => c.kc.makeApiClient(k8s.PolicyV1Api);
  const labels = { app: 'evictme' };
  const pods = async () =>
    (await c.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=evictme' })).items.filter(
      (p) => !p.metadata?.deletionTimestamp,
    );

  beforeAll(async () => {
    // a Ready, schedulable node other than the partitioned one
    const there = (await c.core.listNode()).items.find(
      (n) => n.metadata!.name !== node && readyCondition(n)?.status === 'True' && !n.spec?.unschedulable,
    )!.metadata!.name!;
    await apps().createNamespacedDeployment({ namespace: NS, body: pinnedDeployment('evictme', there) });
    // no disruption allowed at first: the eviction's 429
    await policy().createNamespacedPodDisruptionBudget({
      namespace: NS,
      body: { metadata: { name: 'evictme' }, spec: { minAvailable: 2, selector: { matchLabels: labels } } },
    });
    await eventually(
      async () => {
        const ready = (await pods()).filter((p) => readyCondition(p as never)?.status === 'True');
        const pdb = await policy().readNamespacedPodDisruptionBudget({ namespace: NS, name: 'evictme' });
        const rs = (await apps().listNamespacedReplicaSet({ namespace: NS, labelSelector: 'app=evictme' }))
          .items;
        return ready.length === 2 && pdb.status?.currentHealthy === 2 && rs[0]?.status?.readyReplicas === 2;
      },
      'evictme x2 ready, its budget counting them',
      60_000,
    );
  }, 90_000);

  it('at full strength it is safe; the budget refuses it in the dry run and for real, in its words', async () => {
    const [p] = await pods();
    const name = p!.metadata!.name!;
    const evict = { action: 'evictPod' as const, cluster: CLUSTER, namespace: NS, name };
    const preview = await trpc.actions.preview.query(evict);
    expect(preview.verdict.safe).toBe(true);
    expect(preview.target).toMatchObject({ kind: 'Pod', uid: p!.metadata!.uid });
    expect(preview.verdict.notes).toContainEqual(expect.stringMatching(/^the Eviction API decides/));
    expect(preview.dryRun).toMatchObject({ ran: true, ok: false });
    expect(preview.dryRun.message).toMatch(/refused for now: .*disruption budget/);
    await expect(trpc.actions.perform.mutate(evict)).rejects.toThrow(/refused for now: .*disruption budget/);
    expect((await pods()).map((x) => x.metadata!.uid)).toContain(p!.metadata!.uid);
  });

  it('once the budget allows one, it is evicted, recorded, and its ReplicaSet replaces it', async () => {
    await untilNoConflict(async () => {
      const pdb = await policy().readNamespacedPodDisruptionBudget({ namespace: NS, name: 'evictme' });
      pdb.spec!.minAvailable = 1;
      return policy().replaceNamespacedPodDisruptionBudget({ namespace: NS, name: 'evictme', body: pdb });
    }, 'the budget allowing one');
    const [p] = await pods();
    const name = p!.metadata!.name!;
    const evict = { action: 'evictPod' as const, cluster: CLUSTER, namespace: NS, name };
    const done = await eventually(
      // until the disruption controller has counted the new budget
      () => trpc.actions.perform.mutate(evict).catch(() => undefined),
      'the eviction admitted',
      30_000,
    );
    expect(done.outcome).toBe(`pod ${NS}/${name} was evicted: it is Terminating, with its grace period`);
    expect(done.overridden).toBe(false);
    await eventually(async () => {
      const now = await pods();
      return now.length === 2 && !now.some((x) => x.metadata!.uid === p!.metadata!.uid);
    }, 'a replacement in its place');
    const ev = await eventually(async () => {
      const evs = await c.core.listNamespacedEvent({ namespace: NS });
      return evs.items.find((e) => e.involvedObject.name === name && e.reason === 'PalisadePodEvicted');
    }, 'the eviction Event');
    expect(ev.message).toMatch(new RegExp(`evicted pod ${NS}/${name} from node \\S+ \\(Eviction API\\)`));
  });
});
