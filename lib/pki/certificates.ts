// X.509 certificates for loopback TLS: a throwaway CA and serving certificates it
// signs. Used by the embedded API server and by webhook servers, so that both ends
// verify each other exactly as they would on a real cluster. Built on @peculiar/x509
// (a maintained X.509 library) over Node's WebCrypto; ECDSA P-256 keeps start-up fast.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as any);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface CertificateAuthority extends KeyPairPem {
  /** sign a serving certificate for these DNS names and IP addresses */
  issueServing(commonName: string, hosts: string[], validDays?: number): Promise<KeyPairPem>;
  /** the same, valid from a minute ago until `notAfter` (never past the CA's own expiry) */
  issueServingUntil(commonName: string, hosts: string[], notAfter: Date): Promise<KeyPairPem>;
}

export interface CaOptions {
  /** how long the CA is valid, in milliseconds (default: validDays) */
  validMs?: number;
}

async function exportKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function serial(): string {
  // positive 16-byte serial, as RFC 5280 asks
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Buffer.from(bytes).toString('hex');
}

function sanEntries(hosts: string[]): x509.JsonGeneralName[] {
  const isIp = (h: string) => /^\d+\.\d+\.\d+\.\d+$/.test(h) || h.includes(':');
  return hosts.map((h) => ({ type: isIp(h) ? 'ip' : 'dns', value: h }) as x509.JsonGeneralName);
}

export async function createCertificateAuthority(
  commonName: string,
  validDays = 365,
  o: CaOptions = {},
): Promise<CertificateAuthority> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (o.validMs ?? validDays * DAY)),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });

  return authority(caCert, keys.privateKey, await exportKeyPem(keys.privateKey), validDays);
}

/** A CA from its certificate and PKCS#8 key (as createCertificateAuthority exported them). */
export async function loadCertificateAuthority(
  certPem: string,
  keyPem: string,
): Promise<CertificateAuthority> {
  const caCert = new x509.X509Certificate(certPem);
  const der = x509.PemConverter.decode(keyPem)[0];
  if (!der) throw new Error('the CA key is not PEM');
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, alg, true, ['sign']);
  return authority(caCert, privateKey, keyPem, 365);
}

function authority(
  caCert: x509.X509Certificate,
  signingKey: CryptoKey,
  keyPem: string,
  validDays: number,
): CertificateAuthority {
  const issueServingUntil = async (cn: string, hosts: string[], until: Date): Promise<KeyPairPem> => {
    const notAfter = new Date(Math.min(until.getTime(), caCert.notAfter.getTime()));
    const leafKeys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${cn}`,
      issuer: caCert.subject,
      notBefore: new Date(Date.now() - 60_000),
      notAfter,
      signingAlgorithm: alg,
      publicKey: leafKeys.publicKey,
      signingKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(sanEntries(hosts)),
        await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ],
    });
    return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(leafKeys.privateKey) };
  };
  const issueServing = (cn: string, hosts: string[], days = validDays) =>
    issueServingUntil(cn, hosts, new Date(Date.now() + days * DAY));
  return { certPem: caCert.toString('pem'), keyPem, issueServing, issueServingUntil };
}
