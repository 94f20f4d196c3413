import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertificateAuthority } from './certificates.js';

describe('createCertificateAuthority', () => {
  it('issues a serving certificate that chains to the CA and names its hosts', async () => {
    const ca = await createCertificateAuthority('palisade-test-ca');
    const leaf = await ca.issueServing('apiserver', ['localhost', '127.0.0.1']);
    const caCert = new X509Certificate(ca.certPem);
    const leafCert = new X509Certificate(leaf.certPem);
    expect(caCert.ca).toBe(true);
    expect(leafCert.ca).toBe(false);
    expect(leafCert.checkIssued(caCert)).toBe(true);
    expect(leafCert.verify(caCert.publicKey)).toBe(true);
    expect(leafCert.checkHost('localhost')).toBe('localhost');
    expect(leafCert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leafCert.checkHost('example.com')).toBeUndefined();
    expect(leaf.keyPem).toContain('BEGIN PRIVATE KEY');
  });

  it('a certificate from another CA does not verify', async () => {
    const [a, b] = await Promise.all([createCertificateAuthority('a'), createCertificateAuthority('b')]);
    const leaf = new X509Certificate((await a.issueServing('x', ['localhost'])).certPem);
    expect(leaf.verify(new X509Certificate(b.certPem).publicKey)).toBe(false);
  });
});
