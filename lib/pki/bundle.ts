// Reading PEM into the facts lib/pki/rotation.ts decides on: the certificates of a bundle, which
// of them a private key belongs to, which signed a serving certificate and what it names.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import type { CertFacts, ServingFacts } from './rotation.js';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Each certificate of a PEM bundle, in order (blocks that do not parse are left out). */
export function splitBundle(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of pem.match(PEM_CERT) ?? []) {
    try {
      out.push(new X509Certificate(block));
    } catch {
      // not a certificate: left out, as if it were not there
    }
  }
  return out;
}

/** The PEM of these certificates, one after another (a caBundle, ca.crt). */
export const joinBundle = (certs: X509Certificate[]) =>
  `${certs.map((c) => c.toString().trim()).join('\n')}\n`;

export const fingerprintOf = (c: X509Certificate) => c.fingerprint256;

export function certFacts(c: X509Certificate): CertFacts {
  return {
    fingerprint: fingerprintOf(c),
    notBefore: Date.parse(c.validFrom),
    notAfter: Date.parse(c.validTo),
  };
}

/** Which of these names (DNS names and IP addresses) the certificate does not cover. */
export function missingNames(cert: X509Certificate, names: string[]): string[] {
  return names.filter((n) => (/^[\d.]+$|:/.test(n) ? !cert.checkIP(n) : !cert.checkHost(n)));
}

/** true when the private key (PEM) is the one of this certificate's public key */
export function keyMatches(cert: X509Certificate, keyPem: string): boolean {
  try {
    const pub = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    return Buffer.compare(pub, cert.publicKey.export({ type: 'spki', format: 'der' })) === 0;
  } catch {
    return false;
  }
}

/** The fingerprint of the CA among `cas` that signed `cert`, if any. */
export function issuerOf(cert: X509Certificate, cas: X509Certificate[]): string | undefined {
  const ca = cas.find((c) => cert.checkIssued(c) && cert.verify(c.publicKey));
  return ca && fingerprintOf(ca);
}

/** The facts of a serving certificate and key, or undefined when they are missing or do not match. */
export function servingFacts(
  certPem: string,
  keyPem: string,
  cas: X509Certificate[],
  names: string[],
): ServingFacts | undefined {
  const leaf = splitBundle(certPem)[0];
  if (!leaf || !keyPem || !keyMatches(leaf, keyPem)) return undefined;
  return { ...certFacts(leaf), issuedBy: issuerOf(leaf, cas), missingNames: missingNames(leaf, names) };
}
