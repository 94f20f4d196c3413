// The webhook's caller rules apart from any socket: names read from certificates, exact
// matching against allowedNames, the verdict on a TLS peer, and the trust resolved from
// palisade.yaml and the cells' kubeconfigs (errors name the field and the context).
import { X509Certificate } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import { parseConfig } from '../config/load.js';
import { protectionSchema } from '../config/schema.js';
import { StartupError } from '../kube/kubeconfig.js';
import {
  allowedName,
  callerMaySpeakFor,
  certificateNames,
  chainFingerprints,
  judgeCaller,
  resolveClientTrust,
} from './clientAuth.js';
import { issueClientCert } from '../protection/test/clientCerts.js';

const DEFAULT = ['kube-apiserver-webhook-client'];
const der = (pem: string) => new X509Certificate(pem).raw;

let ca: CertificateAuthority;
let other: CertificateAuthority;
let dir: string;

beforeAll(async () => {
  [ca, other] = await Promise.all([
    createCertificateAuthority('cell-ca'),
    createCertificateAuthority('other-ca'),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'palisade-clientauth-'));
});

function kubeconfig(o: { caData?: string; caFile?: string; context?: string }) {
  const kc = new k8s.KubeConfig();
  const context = o.context ?? 'prod';
  kc.loadFromOptions({
    clusters: [{ name: context, server: 'https://127.0.0.1:6443', caData: o.caData, caFile: o.caFile }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: context, cluster: context, user: 'u' }],
    currentContext: context,
  });
  return kc;
}

const config = (over: object = {}) =>
  protectionSchema.parse({ webhook: { clientAuth: over } }).webhook.clientAuth;

describe('certificateNames / allowedName', () => {
  it('reads the subject CN and the DNS SANs', async () => {
    const c = await issueClientCert(ca, 'kube-apiserver-webhook-client', {
      dns: ['apiserver.example', 'b.example'],
    });
    expect(certificateNames(der(c.cert))).toEqual({
      cn: ['kube-apiserver-webhook-client'],
      dns: ['apiserver.example', 'b.example'],
    });
    const noCn = await issueClientCert(ca, undefined, { dns: ['only-dns.example'] });
    expect(certificateNames(der(noCn.cert))).toEqual({ cn: [], dns: ['only-dns.example'] });
  });

  it.each([
    [{ cn: ['kube-apiserver-webhook-client'], dns: [] }, DEFAULT, 'kube-apiserver-webhook-client'],
    [{ cn: ['mallory'], dns: ['kube-apiserver-webhook-client'] }, DEFAULT, 'kube-apiserver-webhook-client'],
    [{ cn: ['a'], dns: ['b'] }, ['b', 'a'], 'a'],
    // exact, whole names only: no case folding, no prefixes, no wildcards
    [{ cn: ['Kube-Apiserver-Webhook-Client'], dns: [] }, DEFAULT, undefined],
    [{ cn: ['kube-apiserver-webhook-client.evil'], dns: [] }, DEFAULT, undefined],
    [{ cn: ['kube-apiserver-webhook'], dns: [] }, DEFAULT, undefined],
    [{ cn: ['x.example'], dns: ['*.example'] }, ['*.example.org', 'y.example'], undefined],
    [{ cn: [], dns: [] }, DEFAULT, undefined],
  ])('%j against %j -> %s', (names, allowed, want) => {
    expect(allowedName(names, allowed)).toBe(want);
  });
});

describe('judgeCaller', () => {
  it('no certificate: refused at the TLS layer', () => {
    expect(judgeCaller(false, 'UNABLE_TO_GET_ISSUER_CERT', {}, DEFAULT)).toMatchObject({
      ok: false,
      reason: 'no-certificate',
    });
    expect(judgeCaller(false, undefined, undefined, DEFAULT)).toMatchObject({
      ok: false,
      reason: 'no-certificate',
    });
  });

  it('a certificate node:tls could not verify: refused at the TLS layer, with its error', async () => {
    const c = await issueClientCert(other, 'kube-apiserver-webhook-client');
    const v = judgeCaller(false, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', { raw: der(c.cert) }, DEFAULT);
    expect(v).toEqual({
      ok: false,
      reason: 'untrusted-certificate',
      detail: 'client certificate not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    });
    expect('status' in v).toBe(false);
  });

  it('a trusted certificate of another name: 403 naming it', async () => {
    const c = await issueClientCert(ca, 'mallory', { dns: ['mallory.example'] });
    expect(judgeCaller(true, undefined, { raw: der(c.cert) }, DEFAULT)).toEqual({
      ok: false,
      reason: 'name-not-allowed',
      status: 403,
      detail:
        'client certificate CN=mallory is not allowed to call this webhook (allowed: kube-apiserver-webhook-client)',
    });
  });

  it('a trusted certificate of an allowed name: accepted, with its chain', async () => {
    const c = await issueClientCert(ca, 'kube-apiserver-webhook-client');
    const leaf = new X509Certificate(c.cert);
    const root = new X509Certificate(ca.certPem);
    const peer: any = { raw: leaf.raw, fingerprint256: leaf.fingerprint256 };
    const anchor: any = { raw: root.raw, fingerprint256: root.fingerprint256 };
    anchor.issuerCertificate = anchor; // node:tls ends a chain at a self-signed root pointing at itself
    peer.issuerCertificate = anchor;
    expect(judgeCaller(true, undefined, peer, DEFAULT)).toEqual({
      ok: true,
      name: 'kube-apiserver-webhook-client',
      chain: [leaf.fingerprint256, root.fingerprint256],
    });
    expect(chainFingerprints(peer)).toEqual([leaf.fingerprint256, root.fingerprint256]);
  });

  it('callerMaySpeakFor: only when the chain reaches one of the cell’s CAs', () => {
    expect(callerMaySpeakFor({ chain: ['A', 'B'] }, new Set(['B']))).toBe(true);
    expect(callerMaySpeakFor({ chain: ['A', 'B'] }, new Set(['C']))).toBe(false);
    expect(callerMaySpeakFor({ chain: ['A'] }, undefined)).toBe(false);
  });
});

describe('resolveClientTrust', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('required: false trusts nothing and needs nothing', () => {
    expect(
      resolveClientTrust(config({ required: false }), [{ id: 'c', context: 'x', kc: kubeconfig({}) }]),
    ).toEqual({
      required: false,
    });
  });

  it('default: each cell trusts the CA of its kubeconfig (data or file)', async () => {
    const file = join(dir, 'other-ca.crt');
    await writeFile(file, other.certPem);
    const t = resolveClientTrust(config(), [
      { id: 'east', context: 'east-ctx', kc: kubeconfig({ caData: b64(ca.certPem), context: 'east-ctx' }) },
      { id: 'west', context: 'west-ctx', kc: kubeconfig({ caFile: file, context: 'west-ctx' }) },
    ]);
    if (!t.required) throw new Error('expected required');
    const fp = (pem: string) => new X509Certificate(pem).fingerprint256;
    expect(t.cellCas.get('east')).toEqual(new Set([fp(ca.certPem)]));
    expect(t.cellCas.get('west')).toEqual(new Set([fp(other.certPem)]));
    expect(t.caPems.map(fp).sort()).toEqual([fp(ca.certPem), fp(other.certPem)].sort());
    expect(t.allowedNames).toEqual(DEFAULT);
  });

  it('a cell whose kubeconfig has no CA, and no caFile: a startup error naming the field and the context', () => {
    const cells = [
      { id: 'east', context: 'east-ctx', kc: kubeconfig({ caData: b64(ca.certPem), context: 'east-ctx' }) },
      { id: 'managed', context: 'gke_prod', kc: kubeconfig({ context: 'gke_prod' }) },
    ];
    expect(() => resolveClientTrust(config(), cells)).toThrow(StartupError);
    expect(() => resolveClientTrust(config(), cells)).toThrow(
      'protection.webhook.clientAuth.caFile: not given, and the kubeconfig of context "gke_prod" (cell "managed") has no certificate-authority to trust the API server\'s client certificate by: set protection.webhook.clientAuth.caFile (or protection.webhook.clientAuth.required: false)',
    );
  });

  it('caFile: trusted for every cell, instead of the kubeconfigs', async () => {
    const file = join(dir, 'bundle.pem');
    await writeFile(file, `# two CAs\n${ca.certPem}\n${other.certPem}`);
    const t = resolveClientTrust(config({ caFile: file, allowedNames: ['a', 'b'] }), [
      { id: 'managed', context: 'gke_prod', kc: kubeconfig({ context: 'gke_prod' }) },
    ]);
    if (!t.required) throw new Error('expected required');
    expect(t.caPems).toHaveLength(2);
    expect(t.cellCas.get('managed')?.size).toBe(2);
    expect(t.allowedNames).toEqual(['a', 'b']);
    expect(t.source).toBe(file);
  });

  it('caFile errors name the field and the file', async () => {
    const cells = [{ id: 'c', context: 'x', kc: kubeconfig({}) }];
    const missing = join(dir, 'nope.pem');
    expect(() => resolveClientTrust(config({ caFile: missing }), cells)).toThrow(
      `protection.webhook.clientAuth.caFile: cannot read ${missing}: no such file`,
    );
    const junk = join(dir, 'junk.pem');
    await writeFile(junk, 'not a certificate');
    expect(() => resolveClientTrust(config({ caFile: junk }), cells)).toThrow(
      `protection.webhook.clientAuth.caFile ${junk}: no PEM certificate in it`,
    );
    const broken = join(dir, 'broken.pem');
    await writeFile(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(() => resolveClientTrust(config({ caFile: broken }), cells)).toThrow(
      /caFile .*broken\.pem: certificate 1 is not valid X\.509/,
    );
  });

  it('a kubeconfig certificate-authority file that cannot be read names the context', () => {
    const missing = join(dir, 'gone-ca.crt');
    expect(() =>
      resolveClientTrust(config(), [
        { id: 'c', context: 'lab', kc: kubeconfig({ caFile: missing, context: 'lab' }) },
      ]),
    ).toThrow(
      `kubeconfig of context "lab" (cell "c"): certificate-authority: cannot read ${missing}: no such file`,
    );
  });
});

describe('palisade.yaml: protection.webhook.clientAuth', () => {
  it('defaults: required, the kubeconfig CAs, kube-apiserver-webhook-client', () => {
    expect(protectionSchema.parse({}).webhook.clientAuth).toEqual({ required: true, allowedNames: DEFAULT });
    expect(protectionSchema.parse({ webhook: {} }).webhook.clientAuth).toEqual({
      required: true,
      allowedNames: DEFAULT,
    });
    expect(
      protectionSchema.parse({ webhook: { clientAuth: { caFile: '/etc/ca.pem' } } }).webhook.clientAuth,
    ).toEqual({ required: true, caFile: '/etc/ca.pem', allowedNames: DEFAULT });
  });

  it.each([
    [{ allowedNames: [] }, 'protection.webhook.clientAuth.allowedNames: must name at least one caller'],
    [{ allowedNames: ['ok', ''] }, 'protection.webhook.clientAuth.allowedNames[1]: must not be empty'],
    [{ caFile: '' }, 'protection.webhook.clientAuth.caFile: must not be empty'],
    [
      { required: 'yes' },
      'protection.webhook.clientAuth.required: Invalid input: expected boolean, received string',
    ],
    [{ allowedName: ['x'] }, 'protection.webhook.clientAuth.allowedName: unknown field'],
  ])('%j is refused naming the field', (clientAuth, message) => {
    expect(() => parseConfig('palisade.yaml', { protection: { webhook: { clientAuth } } })).toThrow(
      `config palisade.yaml: ${message}`,
    );
  });
});
