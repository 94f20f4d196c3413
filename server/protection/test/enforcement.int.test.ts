// The pod-deletion webhook is enforced only once a replica can answer, and only where it
// protects something. Registered with failurePolicy Ignore, it is switched to Fail by the leader
// after a self-probe through the API server reached a replica, and told (a log line, an Event,
// the palisade_webhook_enforced gauge, the palisade.dev/enforcement annotation); Ignore put back
// by someone (a helm upgrade, a GitOps sync) is undone. A new protector's namespace is labelled
// before its first status write, and only labelled namespaces are reviewed; the label goes with
// the last protector. Writes that carry no leader epoch never reach the epoch webhook. An API
// server whose calls the webhook refuses (no accepted client certificate) keeps it at Ignore —
// a Fail in force is switched back — and that is said loudly, exactly.
//
// The epoch webhook's matchConditions need kube-apiserver, or the embedded API server once it
// evaluates CEL (sim/apiserver/admission/): until then that test fails on the embedded one.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { createCertificateAuthority } from '../../../lib/pki/certificates.js';
import { captureLogs } from '../../test/logCapture.js';
import { palisadeKc } from '../../test/identity.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import type { ProtectionService } from '../service.js';
import {
  baseConfig,
  CELL,
  type Cluster,
  createFixturePods,
  createProtector,
  enforcementOf,
  GROUP,
  markReady,
  namespaceLabels,
  PLURAL,
  podGone,
  scenario,
  untilEnforced,
  VERSION,
} from './protectionHarness.js';
import { startProtectionAlone } from './standalone.js';

const LABEL = 'palisade.dev/deletion-protection';
let cluster: Cluster;
let protection: ProtectionService | undefined;
let custom: k8s.CustomObjectsApi;
let dir: string;
const logged = captureLogs('info');

beforeAll(async () => {
  cluster = await startScenario(scenario('enforcement'));
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  dir = await mkdtemp(join(tmpdir(), 'palisade-enforcement-'));
  for (const ns of ['shop', 'plain']) await createReadyNamespace(cluster.core, ns);
  protection = await startProtectionAlone({
    config: baseConfig({ generator: { enabled: false, workloadSelector: '' } }),
    clusters: [{ id: 'embedded', context: CELL, kc: await palisadeKc(cluster.kc) }],
    logger: logged.logger,
  });
}, 90_000);

afterAll(async () => {
  await protection?.stop();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const gauge = async (p: ProtectionService) =>
  (await p.metrics.enforced.get()).values.find((v) => v.labels.cell === CELL)?.value;

async function eventsAbout(reason: string) {
  const list = await cluster.core.listEventForAllNamespaces();
  return list.items.filter(
    (e) =>
      e.involvedObject.kind === 'ValidatingWebhookConfiguration' &&
      e.involvedObject.name === 'podseidon.kubewharf.io' &&
      e.reason === reason,
  );
}

describe('the leader enforces the pod-deletion webhook once a replica answers', () => {
  it('switches Ignore to Fail after its self-probe reached a replica, and says so', async () => {
    await untilEnforced(cluster.kc);
    // it was registered with Ignore: the leader's switch is logged from Ignore to Fail
    expect(logged.of('enforcement', 'failurePolicy of podseidon.kubewharf.io set to Fail')).toEqual([
      expect.objectContaining({ from: 'Ignore', to: 'Fail', probe: 'reached' }),
    ]);
    const { state } = await enforcementOf(cluster.kc);
    expect(state).toMatchObject({ state: 'enforced', probe: 'reached', by: protection!.runtime.identity });
    expect(await gauge(protection!)).toBe(1);
    expect(protection!.warnings()).toEqual([]);
    await eventually(
      async () => (await eventsAbout('WebhookEnforced')).length > 0,
      'a WebhookEnforced Event',
    );
    // the probe pod: never scheduled, Palisade's own (the pod-deletion webhook leaves it out)
    const probe = await cluster.core.readNamespacedPod({
      namespace: 'default',
      name: 'palisade-webhook-probe',
    });
    expect(probe.spec?.nodeName).toBeUndefined();
    expect(probe.metadata?.labels).toMatchObject({ 'podseidon.kubewharf.io/release-id': 'palisade' });
  });

  it('puts Fail back when someone sets Ignore (a helm upgrade, a GitOps sync)', async () => {
    const api = cluster.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await api.patchValidatingWebhookConfiguration(
      {
        name: 'podseidon.kubewharf.io',
        body: [{ op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Ignore' }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    protection!.enforcer.poke();
    await eventually(async () => (await enforcementOf(cluster.kc)).policy === 'Fail', 'Fail again', 20_000);
  });
});

describe('only namespaces holding a PodProtector are reviewed', () => {
  it('labels a new protector’s namespace before the protector’s first status write', async () => {
    expect(await namespaceLabels(cluster.core, 'shop')).not.toHaveProperty(LABEL);
    await createFixturePods(cluster.core, 'shop', ['web-0', 'web-1'], { app: 'web' });
    for (const p of ['web-0', 'web-1'])
      await markReady(cluster.core, 'shop', p, new Date(Date.now() - 60_000));
    await createProtector(custom, 'shop', 'web', { minAvailable: 2, selector: { app: 'web' } });
    // the first moment the protector reads as aggregated, its namespace is already labelled
    const labelsWhenAggregated = await eventually(
      async () => {
        const p = (await custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace: 'shop',
          name: 'web',
        })) as any;
        return p.status?.cells?.length ? namespaceLabels(cluster.core, 'shop') : undefined;
      },
      'the protector aggregated',
      20_000,
    );
    expect(labelsWhenAggregated).toMatchObject({ [LABEL]: 'enabled' });
    // and enforced at once: Podseidon's refusal right after aggregation
    const refused = await cluster.core.deleteNamespacedPod({ namespace: 'shop', name: 'web-0' }).then(
      () => undefined,
      (e) => e as { code: number; body: unknown },
    );
    expect(refused?.code).toBe(429);
  });

  it('never calls the webhook for a namespace without a protector', async () => {
    await createFixturePods(cluster.core, 'plain', ['a', 'b'], { app: 'plain' });
    const before = (await protection!.metrics.admissionSeconds.get()).values.find(
      (v) => v.metricName === 'palisade_protection_admission_duration_seconds_count',
    )?.value;
    await cluster.core.deleteNamespacedPod({ namespace: 'plain', name: 'a' });
    await cluster.core.deleteNamespacedPod({ namespace: 'plain', name: 'b', body: { dryRun: ['All'] } });
    expect(await podGone(cluster.core, 'plain', 'a')).toBe(true);
    const after = (await protection!.metrics.admissionSeconds.get()).values.find(
      (v) => v.metricName === 'palisade_protection_admission_duration_seconds_count',
    )?.value;
    expect(after).toBe(before);
    expect(await namespaceLabels(cluster.core, 'plain')).not.toHaveProperty(LABEL);
  });

  it('removes the label with the namespace’s last protector, and puts back a label removed by hand', async () => {
    const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    await cluster.core.patchNamespace(
      { name: 'shop', body: { metadata: { labels: { [LABEL]: null } } } },
      mergePatch,
    );
    await eventually(
      async () => (await namespaceLabels(cluster.core, 'shop'))[LABEL] === 'enabled',
      'the label put back',
      15_000,
    );
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: 'shop',
      name: 'web',
    });
    await eventually(
      async () => !(LABEL in (await namespaceLabels(cluster.core, 'shop'))),
      'the label removed',
      15_000,
    );
  });
});

describe('the epoch webhook sees only leader writes (matchConditions)', () => {
  it('a node write without an epoch is not sent to Palisade; a leader write is', async () => {
    const metrics = protection!.runtime.metrics.epochReviews;
    const count = async (leader: boolean) =>
      (await metrics.get()).values
        .filter((v) => v.labels.resource === 'nodes' && v.labels.leader_write === String(leader))
        .reduce((n, v) => n + v.value, 0);
    const node = (await cluster.core.listNode()).items[0].metadata!.name!;
    const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    const before = await count(false);
    for (let i = 0; i < 3; i++)
      await cluster.core.patchNode(
        {
          name: node,
          body: { metadata: { labels: { 'example.com/touched': String(i) } } },
          fieldManager: 'kubectl-label',
        },
        mergePatch,
      );
    expect(await count(false)).toBe(before);
    // a write as the current leader would make it reaches the webhook (and is admitted)
    const epoch = protection!.runtime.get('embedded')?.epoch();
    expect(epoch).toBeGreaterThanOrEqual(0);
    const leaderBefore = await count(true);
    await cluster.core.patchNode(
      {
        name: node,
        body: { metadata: { labels: { 'example.com/touched': 'leader' } } },
        fieldManager: `palisade-leader-e${epoch}`,
      },
      mergePatch,
    );
    // at least once: kube-apiserver runs validating admission again when its write of a patch
    // meets a conflict in storage (the kubelet writes the node's status all the time)
    expect(await count(true)).toBeGreaterThanOrEqual(leaderBefore + 1);
  });
});

describe('an API server the webhook does not hear (no accepted client certificate)', () => {
  it('keeps the webhook at Ignore — switching a Fail in force back — and says so loudly', async () => {
    // the trust of another CA: the API server's webhook client certificate is refused
    const other = await createCertificateAuthority('not-the-apiserver-ca');
    const caFile = join(dir, 'other-ca.pem');
    await writeFile(caFile, other.certPem);
    await protection!.stop();
    // enforced before (as the leader above left it)
    await cluster.kc.makeApiClient(k8s.AdmissionregistrationV1Api).patchValidatingWebhookConfiguration(
      {
        name: 'podseidon.kubewharf.io',
        body: [{ op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Fail' }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    protection = await startProtectionAlone({
      config: baseConfig({
        webhook: { port: 0, host: '127.0.0.1', register: true, clientAuth: { required: true, caFile } },
        generator: { enabled: false, workloadSelector: '' },
      }),
      clusters: [{ id: 'embedded', context: CELL, kc: await palisadeKc(cluster.kc) }],
      logger: logged.logger,
    });
    await eventually(
      async () => {
        const e = await enforcementOf(cluster.kc);
        return e.policy === 'Ignore' && e.state?.state === 'not-enforced' ? e : undefined;
      },
      'the webhook back at Ignore, not enforced',
      45_000,
    );
    const { state } = await enforcementOf(cluster.kc);
    expect(state).toMatchObject({ probe: 'unauthenticated' });
    expect(state!.message).toContain('is NOT enforced');
    expect(state!.message).toContain('palisade webhook refused the caller (untrusted-certificate)');
    expect(await gauge(protection)).toBe(0);
    expect(protection.warnings()).toEqual([expect.stringContaining('is NOT enforced')]);
    expect(
      logged.of('enforcement').filter((r) => r.level === 'warn' && r.state === 'not-enforced'),
    ).not.toEqual([]);
    await eventually(
      async () => (await eventsAbout('WebhookNotEnforced')).length > 0,
      'a WebhookNotEnforced Event',
    );
    // the documented consequence: the API server's refused calls are ignored, so deletions in a
    // protected namespace pass unreviewed (and Palisade's own status writes, whose epoch webhook
    // is Fail, are refused: no protector aggregates either)
    await createFixturePods(cluster.core, 'shop', ['solo'], { app: 'solo' });
    await markReady(cluster.core, 'shop', 'solo', new Date(Date.now() - 60_000));
    await createProtector(custom, 'shop', 'solo', { minAvailable: 1, selector: { app: 'solo' } });
    await eventually(
      async () => (await namespaceLabels(cluster.core, 'shop'))[LABEL] === 'enabled',
      'shop labelled',
      20_000,
    );
    await cluster.core.deleteNamespacedPod({ namespace: 'shop', name: 'solo' });
    expect(await podGone(cluster.core, 'shop', 'solo')).toBe(true);
  }, 120_000);
});
