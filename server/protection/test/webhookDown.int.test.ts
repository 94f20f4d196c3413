// Every replica gone while the pod-deletion webhook is enforced (failurePolicy Fail, put in force
// by the leader after its self-probe): the API server cannot call it, so deletions and evictions
// of pods in the namespace holding a PodProtector fail with 500 and the pods stay — fail closed,
// as a real kube-apiserver does, for protected and unprotected pods of that namespace alike.
// The blast radius ends there: a namespace without a protector carries no label and is never
// reviewed; a pod that was already terminating still finishes (its kubelet's final delete is let
// through by the webhook's matchCondition, no call made); Palisade's own pods go. A new
// protection service registers itself again and is enforced once more.
//
// The terminating pod needs matchConditions: kube-apiserver evaluates them; the embedded API
// server does once sim/apiserver/admission/ evaluates CEL (until then that test fails there).
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { ANN_PRESTOP_MS, ANN_SIGTERM_EXIT_MS } from '../../../sim/controllers/runtime/conventions.js';
import type { ProtectionService } from '../service.js';
import {
  baseConfig,
  CELL,
  createFixturePods,
  createProtector,
  type Env,
  enforcementOf,
  evict,
  markReady,
  namespaceLabels,
  podAlive,
  podGone,
  refusal,
  startEnv,
  untilEnforced,
} from './protectionHarness.js';
import { palisadeKc } from '../../test/identity.js';
import { startProtectionAlone } from './standalone.js';

const ns = 'down';
const open = 'open';
const labels = { 'podseidon-e2e/test': ns };
let env: Env;
let again: ProtectionService | undefined;
let url: string;

beforeAll(async () => {
  env = await startEnv('protection-down', [ns, open]);
  await createFixturePods(env.core, ns, ['guarded-0', 'guarded-1', 'guarded-2', 'guarded-3'], labels);
  await createFixturePods(env.core, ns, ['free-0', 'free-1', 'free-2'], { app: 'free' });
  await createFixturePods(env.core, ns, ['own'], { 'podseidon.kubewharf.io/release-id': 'palisade' });
  await createFixturePods(env.core, open, ['open-0', 'open-1'], { app: 'open' });
  for (const n of ['guarded-0', 'guarded-1', 'guarded-2', 'guarded-3', 'free-0', 'free-1', 'free-2', 'own'])
    await markReady(env.core, ns, n, new Date(Date.now() - 60_000));
  // a pod the kubelet runs, whose termination takes a few seconds (a preStop hook)
  await env.core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name: 'slow', annotations: { [ANN_PRESTOP_MS]: '3000', [ANN_SIGTERM_EXIT_MS]: '100' } },
      spec: { terminationGracePeriodSeconds: 30, containers: [{ name: 'app', image: 'app:1' }] },
    },
  });
  await createProtector(env.custom, ns, 'protector', { minAvailable: 1, selector: labels });
  await eventually(
    () =>
      env.protection.store.get(`${ns}/protector`)?.protector.status?.summary?.aggregatedAvailableReplicas ===
      4,
    'the webhook sees 4 available',
    15_000,
  );
  await untilEnforced(env.cluster.kc);
  await eventually(
    async () =>
      (await env.core.readNamespacedPod({ namespace: ns, name: 'slow' })).status?.phase === 'Running',
    'slow running',
    30_000,
  );
  url = `${env.protection.webhook.url}/admission/${CELL}`;
}, 90_000);

afterAll(async () => {
  await again?.stop();
  await env?.stop();
});

/** What kube-apiserver answers when it cannot reach a failurePolicy Fail webhook. */
function expectUnreachable(r: { code: number; message: string }) {
  const port = new URL(url).port;
  expect(r.code).toBe(500);
  expect(r.message).toBe(
    `Internal error occurred: failed calling webhook "podseidon.kubewharf.io": failed to call webhook: Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
  );
}

describe('every replica gone while the webhook is enforced (failurePolicy Fail)', () => {
  it('while up: only the namespace holding a protector is labelled, and deletions there are judged', async () => {
    expect(await namespaceLabels(env.core, ns)).toMatchObject({
      'palisade.dev/deletion-protection': 'enabled',
    });
    expect(await namespaceLabels(env.core, open)).not.toHaveProperty('palisade.dev/deletion-protection');
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'guarded-0' });
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'free-0' });
    expect(await podGone(env.core, ns, 'free-0')).toBe(true);
  });

  it('a pod already terminating still finishes: its kubelet’s final delete is not sent to the webhook', async () => {
    // admitted while Palisade answers; its kubelet runs the 3 s preStop, then deletes it for good
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'slow' });
    await env.protection.webhook.stop();
    await eventually(
      () =>
        env.core.readNamespacedPod({ namespace: ns, name: 'slow' }).then(
          () => false,
          (e) => (e as { code?: number }).code === 404,
        ),
      'the terminating pod removed by its kubelet',
      30_000,
    );
  }, 60_000);

  it('protected pods: DELETE, eviction and dry run fail with 500, the pods stay', async () => {
    expectUnreachable(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'guarded-1' })));
    expectUnreachable(await refusal(evict(env.core, ns, 'guarded-2')));
    expectUnreachable(
      await refusal(
        env.core.deleteNamespacedPod({ namespace: ns, name: 'guarded-3', body: { dryRun: ['All'] } }),
      ),
    );
    expectUnreachable(
      await refusal(
        env.core.deleteCollectionNamespacedPod({ namespace: ns, labelSelector: 'podseidon-e2e/test=down' }),
      ),
    );
    for (const n of ['guarded-1', 'guarded-2', 'guarded-3'])
      expect(await podAlive(env.core, ns, n)).toBe(true);
    // the leader sees it (at its next probe, sooner when told to look): still Fail (it cannot
    // tell an outage from a passing one), and says so
    env.protection.enforcer.poke();
    await eventually(
      async () => (await enforcementOf(env.cluster.kc)).state?.state === 'enforced-unreachable',
      'the leader reports the webhook unreachable',
      20_000,
    );
    expect((await enforcementOf(env.cluster.kc)).policy).toBe('Fail');
  });

  it('unprotected pods of the protected namespace fail too; a namespace without a protector is untouched', async () => {
    expectUnreachable(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'free-1' })));
    expectUnreachable(await refusal(evict(env.core, ns, 'free-2')));
    expect(await podAlive(env.core, ns, 'free-1')).toBe(true);
    await env.core.deleteNamespacedPod({ namespace: open, name: 'open-0' });
    await evict(env.core, open, 'open-1');
    for (const n of ['open-0', 'open-1']) expect(await podGone(env.core, open, n)).toBe(true);
  });

  it('Palisade’s own pods (release-id=palisade) are left out by the objectSelector and go', async () => {
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'own' });
    expect(await podGone(env.core, ns, 'own')).toBe(true);
  });

  it('a new protection service registers itself again and deletions are judged once more', async () => {
    again = await startProtectionAlone({
      config: baseConfig({ generator: { enabled: false, workloadSelector: '' } }),
      clusters: [{ id: 'embedded', context: CELL, kc: await palisadeKc(env.cluster.kc) }],
    });
    const vwc = await env.cluster.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
    expect(vwc.webhooks?.[0].clientConfig.url).toBe(`${again.webhook.url}/admission/${CELL}`);
    // registering again does not switch enforcement off
    expect(vwc.webhooks?.[0].failurePolicy).toBe('Fail');
    await untilEnforced(env.cluster.kc);
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'free-1' });
    await eventually(
      () => again!.store.get(`${ns}/protector`)?.protector.status?.summary?.aggregatedAvailableReplicas === 3,
      'the new webhook sees 3 available',
      15_000,
    );
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'guarded-1' });
    expect(await podGone(env.core, ns, 'guarded-1')).toBe(true);
  });
});
