// A validating webhook for tests: HTTPS on 127.0.0.1 with a certificate from its own
// CA, answering AdmissionReviews with whatever the current test decides.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority } from '../../../lib/pki/certificates.js';

export type Decide = (
  path: string,
  request: any,
) =>
  | Promise<{ allowed: boolean; status?: object; warnings?: string[] } | 'garbage'>
  | { allowed: boolean; status?: object; warnings?: string[] }
  | 'garbage';

export interface TestWebhook {
  url: string;
  port: number;
  caBundle: string;
  reviews: { path: string; request: any }[];
  decide: Decide;
  stop(): Promise<void>;
}

export async function startWebhook(hosts = ['127.0.0.1', 'localhost']): Promise<TestWebhook> {
  const ca = await createCertificateAuthority('webhook-test-ca');
  const cert = await ca.issueServing('webhook', hosts);
  const hook: TestWebhook = {
    url: '',
    port: 0,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    reviews: [],
    decide: () => ({ allowed: true }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', async () => {
      const review = JSON.parse(text);
      hook.reviews.push({ path: req.url ?? '', request: review.request });
      const verdict = await hook.decide(req.url ?? '', review.request);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (verdict === 'garbage') return res.end('{"not":"a review"}');
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review.request.uid, ...verdict },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  hook.port = (server.address() as AddressInfo).port;
  hook.url = `https://127.0.0.1:${hook.port}`;
  return hook;
}
