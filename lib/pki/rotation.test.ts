import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certFacts, issuerOf, joinBundle, keyMatches, servingFacts, splitBundle } from './bundle.js';
import { createCertificateAuthority } from './certificates.js';
import {
  type CertFacts,
  decideRotation,
  type RotationDecision,
  type RotationPolicy,
  type SecretFacts,
} from './rotation.js';

const H = 3_600_000;
const D = 24 * H;
const policy: RotationPolicy = {
  validity: 365 * D,
  renewBefore: 30 * D,
  caValidity: 5 * 365 * D,
  caRenewBefore: 90 * D,
  grace: 2 * 60_000,
};
const NOW = Date.UTC(2030, 0, 1);

const ca = (fingerprint: string, notBefore: number, notAfter: number): CertFacts => ({
  fingerprint,
  notBefore,
  notAfter,
});
const A = ca('A', NOW - 100 * D, NOW + 1000 * D);
const B = ca('B', NOW - 1 * D, NOW + 1800 * D);
const leaf = (
  issuedBy: string | undefined,
  notBefore: number,
  notAfter: number,
  missingNames: string[] = [],
) => ({
  fingerprint: 'leaf',
  notBefore,
  notAfter,
  issuedBy,
  missingNames,
});
const steady: SecretFacts = {
  present: true,
  cas: [A],
  signer: 'A',
  serving: leaf('A', NOW - 10 * D, NOW + 300 * D),
};

const rows: [string, SecretFacts, RotationDecision][] = [
  ['no Secret: make one', { present: false, cas: [] }, { action: 'create', reason: 'secret-missing' }],
  [
    'a Secret with nothing usable: make anew',
    { present: true, cas: [] },
    { action: 'create', reason: 'secret-unusable' },
  ],
  [
    'all well: look again when the serving certificate is due',
    steady,
    { action: 'none', reason: 'ok', at: NOW + 270 * D },
  ],
  [
    'serving certificate within renewBefore: reissue',
    { ...steady, serving: leaf('A', NOW - 340 * D, NOW + 20 * D) },
    { action: 'issue-serving', reason: 'serving-expiring' },
  ],
  [
    'serving certificate expired: reissue at once',
    { ...steady, serving: leaf('A', NOW - 400 * D, NOW - 1) },
    { action: 'issue-serving', reason: 'serving-expired' },
  ],
  [
    'no serving certificate (or its key does not match)',
    { ...steady, serving: undefined },
    { action: 'issue-serving', reason: 'serving-missing' },
  ],
  [
    'serving certificate lacks a name the webhook needs',
    { ...steady, serving: leaf('A', NOW - D, NOW + 300 * D, ['palisade-webhook.palisade.svc']) },
    { action: 'issue-serving', reason: 'serving-names' },
  ],
  [
    'serving certificate signed by no CA in the bundle',
    { ...steady, serving: leaf(undefined, NOW - D, NOW + 300 * D) },
    { action: 'issue-serving', reason: 'serving-untrusted' },
  ],
  [
    'serving certificate broken and no CA key: make anew',
    { ...steady, signer: undefined, serving: leaf(undefined, NOW - D, NOW + 300 * D) },
    { action: 'create', reason: 'secret-unusable' },
  ],
  [
    'CA within caRenewBefore: a new CA joins the bundle',
    { ...steady, cas: [ca('A', NOW - 1000 * D, NOW + 80 * D)], serving: leaf('A', NOW - D, NOW + 80 * D) },
    { action: 'add-ca', reason: 'ca-expiring' },
  ],
  [
    'a rotation under way when its new CA is due itself: finish the rotation first',
    { ...steady, cas: [A, ca('B', NOW - D, NOW + 80 * D)], signer: 'B' },
    { action: 'wait', reason: 'bundle-propagating', at: NOW + policy.grace },
  ],
  [
    'a rotation under way whose new CA would expire before it ends: another CA after all',
    { ...steady, cas: [A, ca('B', NOW - D, NOW + 2 * policy.grace - 1)], signer: 'B' },
    { action: 'add-ca', reason: 'ca-expiring' },
  ],
  [
    'new CA published, caBundles not yet seen holding it: wait',
    { ...steady, cas: [A, B], signer: 'B' },
    { action: 'wait', reason: 'bundle-propagating', at: NOW + policy.grace },
  ],
  [
    'caBundles hold both for less than grace: wait the rest',
    { ...steady, cas: [A, B], signer: 'B', bundleSyncedAt: NOW - 60_000 },
    { action: 'wait', reason: 'bundle-propagating', at: NOW + 60_000 },
  ],
  [
    'caBundles hold both for grace: the new CA signs the serving certificate',
    { ...steady, cas: [A, B], signer: 'B', bundleSyncedAt: NOW - policy.grace },
    { action: 'issue-serving', reason: 'ca-rotation' },
  ],
  [
    'new serving certificate written less than grace ago: wait for replicas',
    {
      ...steady,
      cas: [A, B],
      signer: 'B',
      serving: leaf('B', NOW - 61_000, NOW + 300 * D),
      servingWrittenAt: NOW - 1000,
    },
    { action: 'wait', reason: 'replicas-reloading', at: NOW - 1000 + policy.grace },
  ],
  [
    'every replica has had grace to reload: the old CA leaves',
    {
      ...steady,
      cas: [A, B],
      signer: 'B',
      serving: leaf('B', NOW - D, NOW + 300 * D),
      servingWrittenAt: NOW - policy.grace,
    },
    { action: 'drop-cas', reason: 'ca-rotation-done', keep: ['B'] },
  ],
  [
    'an expired old CA leaves as well',
    {
      ...steady,
      cas: [ca('A', NOW - 2000 * D, NOW - D), B],
      signer: 'B',
      serving: leaf('B', NOW - D, NOW + 300 * D),
      servingWrittenAt: NOW - H,
    },
    { action: 'drop-cas', reason: 'ca-rotation-done', keep: ['B'] },
  ],
  [
    'no CA key (a Secret from before): served as it is while nothing is due',
    { ...steady, signer: undefined },
    { action: 'none', reason: 'ok', at: NOW + 270 * D },
  ],
  [
    'no CA key and the serving certificate is due: rotate to a CA of our own',
    { ...steady, signer: undefined, serving: leaf('A', NOW - 340 * D, NOW + 20 * D) },
    { action: 'add-ca', reason: 'ca-key-missing' },
  ],
];

describe('decideRotation', () => {
  it.each(rows)('%s', (_, facts, want) => {
    expect(decideRotation(facts, policy, NOW)).toEqual(want);
  });

  it('a whole CA rotation, step by step, never leaves the served certificate untrusted', () => {
    // replay the decisions on a model Secret; at every step the bundle vouches for what is served
    let t = NOW;
    const cas = [ca('A', NOW - 1000 * D, NOW + 89 * D)];
    let s: SecretFacts = { present: true, cas, signer: 'A', serving: leaf('A', NOW - 10 * D, NOW + 89 * D) };
    let bundle = ['A'];
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const d = decideRotation(s, policy, t);
      seen.push(d.reason);
      if (d.action === 'add-ca') {
        s = {
          ...s,
          cas: [...s.cas, ca('B', t - 60_000, t + policy.caValidity)],
          signer: 'B',
          bundleSyncedAt: undefined,
        };
        bundle = s.cas.map((c) => c.fingerprint);
        s.bundleSyncedAt = t + 5_000;
      } else if (d.action === 'issue-serving') {
        s = { ...s, serving: leaf(s.signer, t - 60_000, t + policy.validity), servingWrittenAt: t };
      } else if (d.action === 'drop-cas') {
        s = { ...s, cas: s.cas.filter((c) => d.keep.includes(c.fingerprint)), bundleSyncedAt: t };
        bundle = s.cas.map((c) => c.fingerprint);
      } else if (d.action === 'wait') t = d.at;
      else break;
      expect(bundle).toContain(s.serving!.issuedBy);
    }
    expect(seen).toEqual([
      'ca-expiring',
      'bundle-propagating',
      'ca-rotation',
      'replicas-reloading',
      'ca-rotation-done',
      'ok',
    ]);
  });
});

describe('facts from PEM', () => {
  it('reads a bundle of two CAs, the signer by its key, and a serving certificate by its issuer', async () => {
    const [a, b] = await Promise.all([
      createCertificateAuthority('a'),
      createCertificateAuthority('b', 1, { validMs: 10 * 60_000 }),
    ]);
    const cas = splitBundle(joinBundle([new X509Certificate(a.certPem), new X509Certificate(b.certPem)]));
    expect(cas).toHaveLength(2);
    expect(keyMatches(cas[1], b.keyPem)).toBe(true);
    expect(keyMatches(cas[0], b.keyPem)).toBe(false);
    const served = await b.issueServingUntil('w', ['localhost', '127.0.0.1'], new Date(Date.now() + D));
    const f = servingFacts(served.certPem, served.keyPem, cas, ['localhost', 'x.svc'])!;
    expect(f.issuedBy).toBe(certFacts(cas[1]).fingerprint);
    expect(f.missingNames).toEqual(['x.svc']);
    // clamped to the CA's own expiry
    expect(f.notAfter).toBeLessThanOrEqual(certFacts(cas[1]).notAfter);
    expect(issuerOf(new X509Certificate(served.certPem), [cas[0]])).toBeUndefined();
    expect(servingFacts(served.certPem, a.keyPem, cas, [])).toBeUndefined();
  });
});
