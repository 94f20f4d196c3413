// Replicas behind one webhook address share one serving certificate and CA: the first to start
// makes the Secret, the others (even at the same moment) serve what it made; a Secret whose
// certificate does not name the webhook's host is refused, saying what to do.
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { sharedServingPair } from '../../webhook/servingSecret.js';
import { scenario } from './protectionHarness.js';

let c: Awaited<ReturnType<typeof startScenario>>;

beforeAll(async () => {
  c = await startScenario(scenario('serving-secret'));
}, 120_000);
afterAll(() => c?.stop());

describe('the shared serving certificate', () => {
  it('three replicas starting at once serve one certificate, made once', async () => {
    const ref = { namespace: 'kube-system', name: 'palisade-webhook-serving-race' };
    const names = ['localhost', '127.0.0.1', 'palisade-webhook.palisade.svc'];
    const pairs = await Promise.all([1, 2, 3].map(() => sharedServingPair(c.kc, ref, names)));
    expect(new Set(pairs.map((p) => p.certPem)).size).toBe(1);
    expect(new Set(pairs.map((p) => p.caPem)).size).toBe(1);
    const cert = new X509Certificate(pairs[0].certPem);
    expect(cert.checkHost('palisade-webhook.palisade.svc')).toBeTruthy();
    expect(cert.verify(new X509Certificate(pairs[0].caPem).publicKey)).toBe(true);
    const secret = await c.kc.makeApiClient(k8s.CoreV1Api).readNamespacedSecret(ref);
    expect(secret.type).toBe('kubernetes.io/tls');
    // a later replica serves the same one
    expect((await sharedServingPair(c.kc, ref, names)).certPem).toBe(pairs[0].certPem);
  });

  it('refuses a Secret whose certificate does not name the webhook host', async () => {
    const ref = { namespace: 'kube-system', name: 'palisade-webhook-serving-names' };
    await sharedServingPair(c.kc, ref, ['localhost']);
    await expect(sharedServingPair(c.kc, ref, ['localhost', 'webhook.example.com'])).rejects.toThrow(
      'Secret kube-system/palisade-webhook-serving-names: its certificate does not name webhook.example.com (delete the Secret and Palisade makes a new one)',
    );
  });
});
