// The webhook called straight from the bench process, as the API server would call it
// (the registered URL and CA, one kept-alive connection, an AdmissionReview for the DELETE
// of an unprotected pod): the round trip without the embedded cluster's event loop in it.
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Client } from '../http.js';
import { WEBHOOK_NAME } from '../../server/protection/register.js';

const CONFIG_PATH = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK_NAME}`;

function review(pod: { metadata: { name: string; namespace: string } }) {
  const resource = { group: '', version: 'v1', resource: 'pods' };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource,
      requestResource: resource,
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      operation: 'DELETE',
      userInfo: { username: 'bench' },
      object: null,
      oldObject: pod,
      dryRun: false,
      options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  });
}

/** `n` reviews of `pod`'s DELETE sent one at a time; their round trips in ms, after 5 warm-ups. */
export async function directCalls(c: Client, podPath: string, n: number): Promise<number[]> {
  const pod = JSON.parse((await c.expect(200, 'GET', podPath)).body.toString('utf8'));
  const cfg = JSON.parse((await c.expect(200, 'GET', CONFIG_PATH)).body.toString('utf8'));
  const cc = cfg.webhooks[0].clientConfig as { url: string; caBundle: string };
  const url = new URL(cc.url);
  url.searchParams.set('timeout', '10s');
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: Buffer.from(cc.caBundle, 'base64') });
  const call = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const req = https.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(performance.now() - t0)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const out: number[] = [];
  try {
    for (let i = 0; i < n + 5; i++) {
      const ms = await call(review(pod));
      if (i >= 5) out.push(ms);
    }
  } finally {
    agent.destroy();
  }
  return out;
}
