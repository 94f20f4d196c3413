// A validating webhook for tests: HTTPS on 127.0.0.1 with a certificate from its own
// CA, answering AdmissionReviews with whatever the current test decides.
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
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
  /** each review, with the client certificate's CN when one was presented (clientCa) */
  reviews: { path: string; request: any; client?: { cn: string; verified: boolean } }[];
  decide: Decide;
  stop(): Promise<void>;
}

export async function startWebhook(
  hosts = ['127.0.0.1', 'localhost'],
  /** ask for a client certificate and check it against this CA (PEM) */
  clientCa?: string,
): Promise<TestWebhook> {
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
  const tls = clientCa ? { requestCert: true, rejectUnauthorized: false, ca: clientCa } : {};
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem, ...tls }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = clientCa ? socket.getPeerCertificate() : undefined;
    const client = peer?.subject ? { cn: String(peer.subject.CN), verified: socket.authorized } : undefined;
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', async () => {
      const review = JSON.parse(text);
      hook.reviews.push({ path: req.url ?? '', request: review.request, ...(client ? { client } : {}) });
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
