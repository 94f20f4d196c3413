// The webhook's serving certificate when several Palisade replicas answer behind one address
// (protection.webhook.url or service): a CA bundle and one key pair in a Secret (type
// kubernetes.io/tls; keys ca.crt, tls.crt, tls.key), so every replica serves the same certificate
// and every webhook configuration's caBundle is the Secret's ca.crt.
//
// Self-managed, the Secret also holds ca.key (the key of the CA that signs; the CA is trusted
// nowhere but these caBundles, so it reaches no further than tls.key beside it) and two stamps
// the rotation rule (lib/pki/rotation.ts) reads: when tls.crt was written, and when every
// caBundle was seen holding this ca.crt. The first replica to start makes the Secret — a create
// that answers 409 to the others, who read what won, no leader needed — and from then on only
// the leader's certificate controller (certs/controller.ts) writes it. With cert-manager, the
// Secret is cert-manager's: Palisade only reads it.
import { createHash, X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import {
  certFacts,
  fingerprintOf,
  joinBundle,
  keyMatches,
  servingFacts,
  splitBundle,
} from '../../lib/pki/bundle.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import type { SecretFacts } from '../../lib/pki/rotation.js';
import { isConflict, isNotFound } from '../../lib/kube/errorText.js';
/** A webhook's serving certificate, its key and the CA bundle that verifies it (PEM). */
export interface ServingPair {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface SecretRef {
  namespace: string;
  name: string;
}

/** How long what Palisade makes lasts (protection.webhook.certificates, in milliseconds). */
export interface IssuePolicy {
  validity: number;
  caValidity: number;
}

const DAY = 24 * 3_600_000;
export const DEFAULT_ISSUE: IssuePolicy = { validity: 365 * DAY, caValidity: 5 * 365 * DAY };

/** the key of the signing CA (self-managed only) */
export const CA_KEY = 'ca.key';
/** when tls.crt was written (ISO time) */
export const SERVING_WRITTEN_AT = 'palisade.dev/serving-written-at';
/** `<hash of ca.crt>@<ISO time>`: every webhook configuration's caBundle held this ca.crt then */
export const BUNDLE_SYNCED = 'palisade.dev/ca-bundle-synced';
export const CA_COMMON_NAME = 'palisade-webhook-ca';
export const SERVING_COMMON_NAME = 'palisade-webhook';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s: string | undefined) => (s ? Buffer.from(s, 'base64').toString('utf8') : '');

/** what a Secret's data holds, decoded */
export function contentsOf(s: k8s.V1Secret | undefined) {
  const d = s?.data ?? {};
  return {
    caPem: text(d['ca.crt']),
    certPem: text(d['tls.crt']),
    keyPem: text(d['tls.key']),
    caKeyPem: text(d[CA_KEY]),
  };
}

/** The pair a replica serves, or undefined when the Secret lacks one of the three keys. */
export function pairOf(s: k8s.V1Secret | undefined): ServingPair | undefined {
  const c = contentsOf(s);
  return c.caPem && c.certPem && c.keyPem
    ? { caPem: c.caPem, certPem: c.certPem, keyPem: c.keyPem }
    : undefined;
}

/** A short hash of a ca.crt, to tell which bundle a stamp is about. */
export const bundleHash = (caPem: string) => createHash('sha256').update(caPem).digest('hex').slice(0, 16);

/** What the rotation rule decides on, read from the Secret (undefined: there is none). */
export function secretFacts(s: k8s.V1Secret | undefined, names: string[]): SecretFacts {
  if (!s) return { present: false, cas: [] };
  const c = contentsOf(s);
  const cas = splitBundle(c.caPem);
  const signer = c.caKeyPem ? cas.find((ca) => keyMatches(ca, c.caKeyPem)) : undefined;
  const ann = s.metadata?.annotations ?? {};
  const [hash, at] = (ann[BUNDLE_SYNCED] ?? '').split('@');
  const written = Date.parse(ann[SERVING_WRITTEN_AT] ?? '');
  return {
    present: true,
    cas: cas.map(certFacts),
    signer: signer && fingerprintOf(signer),
    serving: servingFacts(c.certPem, c.keyPem, cas, names),
    ...(hash === bundleHash(c.caPem) && Number.isFinite(Date.parse(at))
      ? { bundleSyncedAt: Date.parse(at) }
      : {}),
    ...(Number.isFinite(written) ? { servingWrittenAt: written } : {}),
  };
}

/** A new CA. */
export const newCa = (p: IssuePolicy) =>
  createCertificateAuthority(CA_COMMON_NAME, 365, { validMs: p.caValidity });

/** A serving certificate for these names from this CA (never past the CA's expiry). */
export const issueServing = (ca: CertificateAuthority, names: string[], p: IssuePolicy) =>
  ca.issueServingUntil(SERVING_COMMON_NAME, names, new Date(Date.now() + p.validity));

/** The data and stamps of a Secret holding exactly this: a CA bundle, the signer's key, a serving pair. */
export function secretContents(o: {
  cas: X509Certificate[] | string;
  caKeyPem: string;
  certPem: string;
  keyPem: string;
  servingWrittenAt: Date;
}) {
  const caPem = typeof o.cas === 'string' ? o.cas : joinBundle(o.cas);
  return {
    data: {
      'ca.crt': b64(caPem),
      'tls.crt': b64(o.certPem),
      'tls.key': b64(o.keyPem),
      [CA_KEY]: b64(o.caKeyPem),
    },
    annotations: { [SERVING_WRITTEN_AT]: o.servingWrittenAt.toISOString() },
  };
}

/** A fresh CA and serving certificate, as a Secret's data and stamps. */
export async function freshContents(names: string[], p: IssuePolicy) {
  const ca = await newCa(p);
  const leaf = await issueServing(ca, names, p);
  return secretContents({
    cas: ca.certPem,
    caKeyPem: ca.keyPem,
    certPem: leaf.certPem,
    keyPem: leaf.keyPem,
    servingWrittenAt: new Date(),
  });
}

/** Which of these names the certificate does not cover (DNS names and IP addresses). */
export function missingNames(certPem: string, names: string[]): string[] {
  const cert = new X509Certificate(certPem);
  return names.filter((n) => (/^[\d.]+$|:/.test(n) ? !cert.checkIP(n) : !cert.checkHost(n)));
}

/** A CA of its own and a serving certificate for these names (one process, no replicas). */
export async function newServingPair(names: string[]): Promise<ServingPair> {
  const ca = await createCertificateAuthority(CA_COMMON_NAME);
  const leaf = await ca.issueServing(SERVING_COMMON_NAME, names);
  return { caPem: ca.certPem, certPem: leaf.certPem, keyPem: leaf.keyPem };
}

export async function readSecret(core: k8s.CoreV1Api, ref: SecretRef): Promise<k8s.V1Secret | undefined> {
  return core.readNamespacedSecret(ref).catch((e) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
}

/**
 * The Secret as a replica starting finds it, made first when it is missing (self-managed: the
 * first replica to start makes it, the rest read what won). What it serves may be due for a
 * change (names, expiry): the leader's controller makes that change, and every replica reloads.
 */
export async function ensureServingSecret(
  kc: k8s.KubeConfig,
  ref: SecretRef,
  names: string[],
  p: IssuePolicy = DEFAULT_ISSUE,
): Promise<k8s.V1Secret> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const found = await readSecret(core, ref);
  if (found) return found;
  const made = await freshContents(names, p);
  try {
    return await core.createNamespacedSecret({
      namespace: ref.namespace,
      body: {
        metadata: {
          name: ref.name,
          labels: { 'app.kubernetes.io/managed-by': 'palisade' },
          annotations: made.annotations,
        },
        type: 'kubernetes.io/tls',
        data: made.data,
      },
    });
  } catch (e) {
    // another replica made it first: serve what it made
    if (!isConflict(e)) throw e;
    const won = await readSecret(core, ref);
    if (!won) throw new Error(`Secret ${ref.namespace}/${ref.name} was created and is gone again`);
    return won;
  }
}

/**
 * The shared pair, made when missing; refused (naming what it names) when its certificate does
 * not name the webhook's hosts. For callers without a certificate controller (test balancers).
 */
export async function sharedServingPair(
  kc: k8s.KubeConfig,
  ref: SecretRef,
  names: string[],
  p: IssuePolicy = DEFAULT_ISSUE,
): Promise<ServingPair> {
  const pair = pairOf(await ensureServingSecret(kc, ref, names, p));
  if (!pair) throw new Error(`Secret ${ref.namespace}/${ref.name} has no ca.crt, tls.crt and tls.key`);
  const missing = missingNames(pair.certPem, names);
  if (missing.length)
    throw new Error(
      `Secret ${ref.namespace}/${ref.name}: its certificate does not name ${missing.join(', ')} (delete the Secret and Palisade makes a new one)`,
    );
  return pair;
}
