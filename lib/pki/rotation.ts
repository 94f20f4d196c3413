// What the webhook's certificate controller does next, given what its Secret holds and the time:
// a pure rule, so every stage of a rotation is a row of a table test. The Secret holds a CA
// bundle (ca.crt: one CA, or the old and the new one during a CA rotation), the serving
// certificate and key (tls.crt, tls.key) and the key of the CA that signs (ca.key). The API
// servers trust what the webhook configurations' caBundle says, and every replica serves what
// it last read from the Secret, so each step waits until the one before has reached them:
//
//   1. a CA nears its expiry: a new CA joins the bundle (old + new), and becomes the signer;
//   2. once every webhook configuration's caBundle has held old + new for `grace`, the serving
//      certificate is reissued by the new CA (replicas still serving the old one are trusted);
//   3. once that serving certificate has been in the Secret for `grace` (every replica reloaded),
//      the old CA leaves the bundle.
//
// A serving certificate nearing its expiry is reissued by the signer (trusted already). When
// nothing usable is left (no Secret, no serving certificate any CA in the bundle vouches for)
// there is nothing to keep working, so the fix is immediate.

/** One certificate's facts: its SHA-256 fingerprint and validity, in milliseconds since the epoch. */
export interface CertFacts {
  fingerprint: string;
  notBefore: number;
  notAfter: number;
}

export interface ServingFacts extends CertFacts {
  /** fingerprint of the CA in the bundle that signed it (undefined: none of them) */
  issuedBy?: string;
  /** names the webhook needs that it does not carry */
  missingNames: string[];
}

export interface SecretFacts {
  /** the Secret exists */
  present: boolean;
  /** the CA bundle (ca.crt) in order, certificates that did not parse left out */
  cas: CertFacts[];
  /** fingerprint of the CA in the bundle whose key ca.key holds (undefined: none) */
  signer?: string;
  /** tls.crt with a tls.key that matches it (undefined: missing, unreadable or mismatched) */
  serving?: ServingFacts;
  /** when every webhook configuration's caBundle was seen equal to this ca.crt */
  bundleSyncedAt?: number;
  /** when this tls.crt was written to the Secret */
  servingWrittenAt?: number;
}

export interface RotationPolicy {
  /** serving certificate lifetime (ms) */
  validity: number;
  /** reissue the serving certificate this long before it expires (ms) */
  renewBefore: number;
  /** CA lifetime (ms) */
  caValidity: number;
  /** start a CA rotation this long before the CA expires (ms) */
  caRenewBefore: number;
  /** how long a change takes to reach every API server and replica (ms) */
  grace: number;
}

export type CreateReason = 'secret-missing' | 'secret-unusable';
export type IssueReason =
  | 'serving-missing'
  | 'serving-expired'
  | 'serving-names'
  | 'serving-untrusted'
  | 'serving-expiring'
  | 'ca-rotation';
export type AddCaReason = 'ca-expiring' | 'ca-key-missing';
export type WaitReason = 'bundle-propagating' | 'replicas-reloading';

export type RotationDecision =
  /** make a new CA and serving certificate; ca.crt holds only the new CA */
  | { action: 'create'; reason: CreateReason }
  /** a new serving certificate from the signer */
  | { action: 'issue-serving'; reason: IssueReason }
  /** a new CA joins the bundle (after the ones there) and becomes the signer */
  | { action: 'add-ca'; reason: AddCaReason }
  /** ca.crt keeps only these CAs (fingerprints) */
  | { action: 'drop-cas'; reason: 'ca-rotation-done'; keep: string[] }
  /** nothing to write until `at` */
  | { action: 'wait'; reason: WaitReason; at: number }
  /** all is well; look again at `at` (the next renewal) */
  | { action: 'none'; reason: 'ok'; at: number };

export type RotationReason = RotationDecision['reason'];

/** Why a serving certificate cannot be served as it is, or undefined when it can. */
function servingProblem(s: SecretFacts, now: number): IssueReason | undefined {
  const leaf = s.serving;
  if (!leaf) return 'serving-missing';
  if (now >= leaf.notAfter || now < leaf.notBefore) return 'serving-expired';
  const issuer = s.cas.find((c) => c.fingerprint === leaf.issuedBy);
  if (!issuer || now >= issuer.notAfter) return 'serving-untrusted';
  if (leaf.missingNames.length) return 'serving-names';
  return undefined;
}

export function decideRotation(s: SecretFacts, p: RotationPolicy, now: number): RotationDecision {
  if (!s.present) return { action: 'create', reason: 'secret-missing' };
  const signer = s.cas.find((c) => c.fingerprint === s.signer && now < c.notAfter);
  const problem = servingProblem(s, now);
  if (problem) {
    // nothing served now is worth keeping: fix it at once, with the signer if there is one
    if (signer && now < signer.notAfter - p.grace) return { action: 'issue-serving', reason: problem };
    return { action: 'create', reason: 'secret-unusable' };
  }
  const leaf = s.serving!;
  const renewLeafAt = leaf.notAfter - p.renewBefore;
  if (!signer) {
    // a Secret made without ca.key (an older Palisade, or by hand): serve it while it lasts,
    // rotate to a CA of our own when something would need signing
    const issuer = s.cas.find((c) => c.fingerprint === leaf.issuedBy)!;
    const renewCaAt = issuer.notAfter - p.caRenewBefore;
    if (now >= renewLeafAt || now >= renewCaAt) return { action: 'add-ca', reason: 'ca-key-missing' };
    return { action: 'none', reason: 'ok', at: Math.min(renewLeafAt, renewCaAt) };
  }
  const renewCaAt = signer.notAfter - p.caRenewBefore;
  // a CA rotation under way finishes first while its signer outlasts the two steps left: a third
  // CA would start another rotation on top of it (a new leader taking over late, or a CA lifetime
  // shorter than a rotation, found [old, new, newer] in the caBundle)
  const rotating = s.cas.some((c) => c.fingerprint !== signer.fingerprint);
  const finishFirst = rotating && now < signer.notAfter - 2 * p.grace;
  if (now >= renewCaAt && !finishFirst) return { action: 'add-ca', reason: 'ca-expiring' };
  if (leaf.issuedBy !== signer.fingerprint) {
    // a CA rotation: the new CA signs once every caBundle has trusted it for `grace`
    if (s.bundleSyncedAt === undefined)
      return { action: 'wait', reason: 'bundle-propagating', at: now + Math.max(1000, p.grace) };
    if (now < s.bundleSyncedAt + p.grace)
      return { action: 'wait', reason: 'bundle-propagating', at: s.bundleSyncedAt + p.grace };
    return { action: 'issue-serving', reason: 'ca-rotation' };
  }
  if (now >= renewLeafAt) return { action: 'issue-serving', reason: 'serving-expiring' };
  if (s.cas.some((c) => c.fingerprint !== signer.fingerprint)) {
    // the old CA goes once every replica serves what the signer signed
    // (without the Secret's stamp: the certificate's notBefore, which is backdated by a minute)
    const since = s.servingWrittenAt ?? leaf.notBefore + 60_000;
    if (now < since + p.grace) return { action: 'wait', reason: 'replicas-reloading', at: since + p.grace };
    return { action: 'drop-cas', reason: 'ca-rotation-done', keep: [signer.fingerprint] };
  }
  return { action: 'none', reason: 'ok', at: Math.min(renewLeafAt, renewCaAt) };
}
