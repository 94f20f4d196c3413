// The webhook is down while its ValidatingWebhookConfiguration stays registered
// (failurePolicy Fail): the API server cannot call it, so every pod DELETE and eviction
// the configuration matches fails with 500 and the pod stays — protected or not, as a
// real kube-apiserver does; only pods the objectSelector leaves out (Palisade's own,
// podseidon.kubewharf.io/release-id=palisade) can still go. A new protection service
// registers itself again and deletions flow.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { type ProtectionService, startProtection } from '../service.js';
import {
  baseConfig,
  CELL,
  createFixturePods,
  createProtector,
  type Env,
  evict,
  markReady,
  podAlive,
  podGone,
  refusal,
  startEnv,
} from './protectionHarness.js';

const ns = 'down';
const labels = { 'podseidon-e2e/test': ns };
let env: Env;
let again: ProtectionService | undefined;
let url: string;

beforeAll(async () => {
  env = await startEnv('protection-down', [ns]);
  await createFixturePods(env.core, ns, ['guarded-0', 'guarded-1', 'guarded-2', 'guarded-3'], labels);
  await createFixturePods(env.core, ns, ['free-0', 'free-1', 'free-2'], { app: 'free' });
  await createFixturePods(env.core, ns, ['own'], { 'podseidon.kubewharf.io/release-id': 'palisade' });
  for (const n of ['guarded-0', 'guarded-1', 'guarded-2', 'guarded-3', 'free-0', 'free-1', 'free-2', 'own'])
    await markReady(env.core, ns, n, new Date(Date.now() - 60_000));
  await createProtector(env.custom, ns, 'protector', { minAvailable: 1, selector: labels });
  await eventually(
    () =>
      env.protection.store.get(`${ns}/protector`)?.protector.status?.summary?.aggregatedAvailableReplicas ===
      4,
    'the webhook sees 4 available',
    15_000,
  );
  url = `${env.protection.webhook.url}/admission/${CELL}`;
}, 60_000);

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

describe('webhook down, configuration still registered (failurePolicy Fail)', () => {
  it('while up: a protected deletion is judged, an unprotected pod goes freely', async () => {
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'guarded-0' });
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'free-0' });
    expect(await podGone(env.core, ns, 'free-0')).toBe(true);
  });

  it('protected pods: DELETE, eviction and dry run fail with 500, the pods stay', async () => {
    await env.protection.webhook.stop();
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
  });

  it('unprotected pods fail too: the configuration matches every pod, not only protected ones', async () => {
    expectUnreachable(await refusal(env.core.deleteNamespacedPod({ namespace: ns, name: 'free-1' })));
    expectUnreachable(await refusal(evict(env.core, ns, 'free-2')));
    expect(await podAlive(env.core, ns, 'free-1')).toBe(true);
    expect(await podAlive(env.core, ns, 'free-2')).toBe(true);
  });

  it('Palisade’s own pods (release-id=palisade) are left out by the objectSelector and go', async () => {
    await env.core.deleteNamespacedPod({ namespace: ns, name: 'own' });
    expect(await podGone(env.core, ns, 'own')).toBe(true);
  });

  it('a new protection service registers itself again and deletions are judged once more', async () => {
    again = await startProtection({
      config: baseConfig({ generator: { enabled: false, workloadSelector: '' } }),
      clusters: [{ id: 'embedded', context: CELL, kc: env.cluster.kc }],
    });
    const vwc = await env.cluster.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
    expect(vwc.webhooks?.[0].clientConfig.url).toBe(`${again.webhook.url}/admission/${CELL}`);
    expect(vwc.webhooks?.[0].failurePolicy).toBe('Fail');
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
