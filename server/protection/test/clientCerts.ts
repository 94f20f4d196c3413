// Client certificates for the webhook tests, signed by a CA the test holds (its key from
// lib/pki's createCertificateAuthority), and an HTTPS POST that presents one — or none — the
// way a caller straight at the webhook's port would.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import https from 'node:https';
import * as x509 from '@peculiar/x509';
import type { KeyPairPem } from '../../../lib/pki/certificates.js';

x509.cryptoProvider.set(webcrypto as any);

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface ClientCert {
  cert: string;
  key: string;
}

/** A client certificate (clientAuth usage) for `cn` and these DNS names, signed by `ca`. */
export async function issueClientCert(
  ca: KeyPairPem,
  cn: string | undefined,
  o: { dns?: string[]; usage?: 'client' | 'server'; validDays?: number } = {},
): Promise<ClientCert> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    x509.PemConverter.decode(ca.keyPem)[0],
    alg,
    false,
    ['sign'],
  );
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const days = o.validDays ?? 1;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
      .toString('hex')
      .replace(/^./, '1'),
    subject: cn === undefined ? 'O=palisade-test' : `CN=${cn}`,
    issuer: caCert.subject,
    notBefore: new Date(Math.min(now, now + days * 86_400_000) - 60_000),
    notAfter: new Date(now + days * 86_400_000),
    signingAlgorithm: alg,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([
        o.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
      ]),
      ...(o.dns?.length
        ? [new x509.SubjectAlternativeNameExtension(o.dns.map((value) => ({ type: 'dns' as const, value })))]
        : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(key, 'PRIVATE KEY') };
}

export type PostResult =
  | { ok: true; status: number; text: string; json?: any }
  | { ok: false; error: string; code?: string };

/** POST `body` to the webhook (trusting `serverCa`), presenting `client` if given. */
export function postReview(
  url: string,
  body: string | object,
  serverCa: string,
  client?: ClientCert,
): Promise<PostResult> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        ca: serverCa,
        ...(client ? { cert: client.cert, key: client.key } : {}),
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const t = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(t);
          } catch {
            json = undefined;
          }
          resolve({ ok: true, status: res.statusCode ?? 0, text: t, json });
        });
        res.on('error', (e) => resolve({ ok: false, error: e.message, code: (e as any).code }));
      },
    );
    req.on('error', (e) => resolve({ ok: false, error: e.message, code: (e as any).code }));
    req.end(text);
  });
}
