// The webhook's serving certificate when several Palisade replicas answer behind one address
// (protection.webhook.url): one CA and one key pair in a Secret, so every replica serves the
// same certificate and registers the same caBundle (registrations never flap between replicas).
// The first replica to start makes it; creating it is a create that answers 409 to the others,
// who read what won — no leader needed. A Secret whose certificate does not name the webhook's
// host is refused, naming what it names (reissue it by deleting the Secret).
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { createCertificateAuthority } from '../../lib/pki/certificates.js';
import { isConflict } from '../../lib/kube/errorText.js';

export interface ServingPair {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface SecretRef {
  namespace: string;
  name: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s: string | undefined) => (s ? Buffer.from(s, 'base64').toString('utf8') : '');

function fromSecret(s: k8s.V1Secret): ServingPair | undefined {
  const d = s.data ?? {};
  const pair = { caPem: text(d['ca.crt']), certPem: text(d['tls.crt']), keyPem: text(d['tls.key']) };
  return pair.caPem && pair.certPem && pair.keyPem ? pair : undefined;
}

/** Which of these names the certificate does not cover (DNS names and IP addresses). */
export function missingNames(certPem: string, names: string[]): string[] {
  const cert = new X509Certificate(certPem);
  return names.filter((n) => (/^[\d.]+$|:/.test(n) ? !cert.checkIP(n) : !cert.checkHost(n)));
}

/** A CA of its own and a serving certificate for these names (one process, no replicas). */
export async function newServingPair(names: string[]): Promise<ServingPair> {
  const ca = await createCertificateAuthority('palisade-webhook-ca');
  const leaf = await ca.issueServing('palisade-webhook', names);
  return { caPem: ca.certPem, certPem: leaf.certPem, keyPem: leaf.keyPem };
}

export async function sharedServingPair(
  kc: k8s.KubeConfig,
  ref: SecretRef,
  names: string[],
): Promise<ServingPair> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const read = async () => {
    const s = await core.readNamespacedSecret(ref).catch((e) => {
      if ((e as { code?: number }).code === 404) return undefined;
      throw e;
    });
    if (!s) return undefined;
    const pair = fromSecret(s);
    if (!pair) throw new Error(`Secret ${ref.namespace}/${ref.name} has no ca.crt, tls.crt and tls.key`);
    return pair;
  };
  let pair = await read();
  if (!pair) {
    const made = await newServingPair(names);
    try {
      await core.createNamespacedSecret({
        namespace: ref.namespace,
        body: {
          metadata: { name: ref.name, labels: { 'app.kubernetes.io/managed-by': 'palisade' } },
          type: 'kubernetes.io/tls',
          data: { 'ca.crt': b64(made.caPem), 'tls.crt': b64(made.certPem), 'tls.key': b64(made.keyPem) },
        },
      });
      pair = made;
    } catch (e) {
      // another replica made it first: serve what it made
      if (!isConflict(e)) throw e;
      pair = await read();
      if (!pair) throw new Error(`Secret ${ref.namespace}/${ref.name} was created and is gone again`);
    }
  }
  const missing = missingNames(pair.certPem, names);
  if (missing.length)
    throw new Error(
      `Secret ${ref.namespace}/${ref.name}: its certificate does not name ${missing.join(', ')} (delete the Secret and Palisade makes a new one)`,
    );
  return pair;
}
