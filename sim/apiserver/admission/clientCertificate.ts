// The client certificate a control plane presents to admission webhooks, and the two files
// kube-apiserver reads it from: an AdmissionConfiguration (--admission-control-config-file)
// whose ValidatingAdmissionWebhook plugin names a kubeconfig with that certificate for every
// webhook host ("*"). Signed by the cluster's own CA, so that a webhook can trust exactly the
// clients the cluster's kubeconfig CA vouches for.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import YAML from 'yaml';

x509.cryptoProvider.set(webcrypto as any);

export const WEBHOOK_CLIENT_CN = 'kube-apiserver-webhook-client';

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

export interface IssuingCa {
  certPem: string;
  keyPem: string;
}

async function importKey(pem: string) {
  const der = x509.PemConverter.decode(pem)[0];
  return webcrypto.subtle.importKey('pkcs8', der, alg, true, ['sign']);
}

/** a TLS client certificate (clientAuth) for CN=commonName, signed by the CA */
export async function issueClientCertificate(
  ca: IssuingCa,
  commonName: string,
  validDays = 365,
): Promise<{ certPem: string; keyPem: string }> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const serial = webcrypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(serial).toString('hex'),
    subject: `CN=${commonName}`,
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + validDays * DAY),
    signingAlgorithm: alg,
    publicKey: keys.publicKey,
    signingKey: await importKey(ca.keyPem),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  const keyDer = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(keyDer, 'PRIVATE KEY') };
}

export interface WebhookClientFiles {
  /** for --admission-control-config-file / ApiServerOptions.admissionControlConfigFile */
  admissionConfigFile: string;
  /** the kubeconfig it names: one user "*" with the client certificate */
  kubeconfigFile: string;
  certPem: string;
  keyPem: string;
}

/** Issue the webhook client certificate and write the AdmissionConfiguration and kubeconfig into dir. */
export async function writeWebhookClientConfig(dir: string, ca: IssuingCa): Promise<WebhookClientFiles> {
  const { certPem, keyPem } = await issueClientCertificate(ca, WEBHOOK_CLIENT_CN);
  const kubeconfigFile = join(dir, 'webhook-client.kubeconfig');
  const admissionConfigFile = join(dir, 'admission-config.yaml');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    users: [
      {
        name: '*',
        user: {
          'client-certificate-data': Buffer.from(certPem).toString('base64'),
          'client-key-data': Buffer.from(keyPem).toString('base64'),
        },
      },
    ],
  };
  const admission = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'ValidatingAdmissionWebhook',
        configuration: {
          apiVersion: 'apiserver.config.k8s.io/v1',
          kind: 'WebhookAdmissionConfiguration',
          kubeConfigFile: kubeconfigFile,
        },
      },
    ],
  };
  await writeFile(kubeconfigFile, YAML.stringify(kubeconfig), { mode: 0o600 });
  await writeFile(admissionConfigFile, YAML.stringify(admission), { mode: 0o600 });
  return { admissionConfigFile, kubeconfigFile, certPem, keyPem };
}
