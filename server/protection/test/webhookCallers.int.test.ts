// The attack the webhook's mutual TLS closes, replayed with the default trust (the CA of the
// cell's kubeconfig): a forged AdmissionReview (user "mallory", DELETE of a Running protected
// pod) posted straight to the webhook's port — with no client certificate, with one from
// another CA, with one of a CA the kubeconfig trusts but another name, expired, or not for
// client auth — is refused with a 403 saying why (what the API server's error, and the leader's
// self-probe, show) before anything of it is parsed; the PodProtector's status stays as it
// was (no bucket, estimated == aggregated), each refusal is counted and logged once per cause
// without the body; a real deletion through the API server (which presents the cluster's
// webhook client certificate, CN kube-apiserver-webhook-client, signed by the cluster CA) is
// judged as before; another cell's API server cannot speak for this cell. With
// clientAuth.required: false the same forged review books quota: the hole itself.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { type CertificateAuthority, createCertificateAuthority } from '../../../lib/pki/certificates.js';
import { captureLogs } from '../../test/logCapture.js';
import { createReadyNamespace } from '../../test/namespaces.js';
import type { ProtectionService } from '../service.js';
import { type ClientCert, issueClientCert, type PostResult, postReview } from './clientCerts.js';
import {
  bucketsOf,
  CELL,
  type Cluster,
  createFixturePods,
  createProtector,
  getProtector,
  markReady,
  podGone,
  recordVersions,
  scenario,
} from './protectionHarness.js';
import { palisadeKc } from '../../test/identity.js';
import { startProtectionAlone } from './standalone.js';

const ns = 'shop';
const labels = { app: 'checkout' };
const PODS = ['checkout-0', 'checkout-1', 'checkout-2', 'checkout-3'];
const KEY = `${ns}/checkout`;
const WEST = 'west';

let cluster: Cluster;
let west: Cluster;
let protection: ProtectionService;
let custom: k8s.CustomObjectsApi;
const logged = captureLogs();
/** a second CA in the cell's kubeconfig bundle (as during a CA rotation): trusted by default */
let bundledCa: CertificateAuthority;
let otherCa: CertificateAuthority;

/** the same kubeconfig, its cluster's certificate-authority-data a bundle with one more CA */
function withBundledCa(kc: k8s.KubeConfig, extraPem: string): k8s.KubeConfig {
  const current = kc.getCurrentCluster()!;
  const pem = `${Buffer.from(current.caData!, 'base64').toString('utf8').trim()}\n${extraPem}`;
  const out = new k8s.KubeConfig();
  out.loadFromOptions({
    clusters: kc.clusters.map((c) =>
      c.name === current.name ? { ...c, caData: Buffer.from(pem).toString('base64') } : c,
    ),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return out;
}

const apiserverCert = (c: Cluster): ClientCert => ({
  cert: c.webhookClient.certPem,
  key: c.webhookClient.keyPem,
});

beforeAll(async () => {
  [cluster, west] = await Promise.all([
    startScenario(scenario('webhook-callers')),
    startScenario(scenario('webhook-callers-west')),
  ]);
  await createReadyNamespace(cluster.core, ns);
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  bundledCa = await createCertificateAuthority('rotation-ca');
  otherCa = await createCertificateAuthority('mallory-ca');
  protection = await startProtectionAlone({
    config: {
      webhook: { port: 0, host: '127.0.0.1', register: true },
      aggregator: {
        protectorSelector: '',
        updateTrigger: { enabled: true, namespace: 'default', intervalMillis: 300 },
      },
      generator: { enabled: false, workloadSelector: '' },
    },
    clusters: [
      // Palisade acts as the chart's ServiceAccount when PALISADE_TEST_IDENTITY=chart
      { id: 'embedded', context: CELL, kc: withBundledCa(await palisadeKc(cluster.kc), bundledCa.certPem) },
      { id: WEST, context: WEST, kc: await palisadeKc(west.kc) },
    ],
    logger: logged.logger,
  });
  await createFixturePods(cluster.core, ns, PODS, labels);
  for (const n of PODS) await markReady(cluster.core, ns, n, new Date(Date.now() - 60_000));
  await createProtector(custom, ns, 'checkout', { minAvailable: 2, selector: labels });
  await eventually(
    () => protection.store.get(KEY)?.protector.status?.summary?.aggregatedAvailableReplicas === 4,
    'the webhook sees 4 available',
    15_000,
  );
}, 90_000);

afterAll(async () => {
  await protection?.stop();
  await Promise.all([cluster?.stop(), west?.stop()]);
});

/** mallory's review: DELETE of a Running, Ready checkout pod, as an API server would send it */
async function forgedReview(pod: string) {
  const live = await cluster.core.readNamespacedPod({ namespace: ns, name: pod });
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `forged-${pod}-${Math.random().toString(16).slice(2)}`,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: pod,
      namespace: ns,
      operation: 'DELETE',
      userInfo: { username: 'mallory', groups: ['system:authenticated'] },
      object: null,
      oldObject: JSON.parse(JSON.stringify(live)),
      dryRun: false,
      options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  };
}

const url = (cell = CELL) => `${protection.webhook.url}/admission/${cell}?timeout=10s`;
const post = (body: object, client?: ClientCert, cell = CELL) =>
  postReview(url(cell), body, protection.webhook.caPem, client);

async function refusals(reason: string) {
  const m = await protection.metrics.refusedCallers.get();
  return m.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

async function webhookWrites() {
  const m = await protection.metrics.statusWrites.get();
  return m.values.filter((v) => v.labels.writer === 'webhook').reduce((n, v) => n + v.value, 0);
}

/** the status as the API has it: no bucket, estimated == aggregated == 4 */
async function expectUntouched() {
  const p = await getProtector(custom, ns, 'checkout');
  expect(bucketsOf(p, CELL)).toEqual([]);
  expect(p.status.summary.aggregatedAvailableReplicas).toBe(4);
  expect(p.status.summary.estimatedAvailableReplicas).toBe(4);
  expect(protection.decisions.recent(KEY).filter((d) => d.requester === 'mallory')).toEqual([]);
}

/** refused as the handshake ends: a 403 with the reason, nothing of the request parsed */
function expectRefused(r: PostResult, reason: string, detail: string) {
  expect(r).toMatchObject({
    ok: true,
    status: 403,
    text: `palisade webhook refused the caller (${reason}): ${detail}`,
  });
}

describe('a forged AdmissionReview straight to the webhook port', () => {
  it('with no client certificate: refused as the handshake ends, nothing booked', async () => {
    const before = await refusals('no-certificate');
    expectRefused(await post(await forgedReview('checkout-0')), 'no-certificate', 'no client certificate');
    expectRefused(await post(await forgedReview('checkout-0')), 'no-certificate', 'no client certificate');
    expect(await refusals('no-certificate')).toBe(before + 2);
    await expectUntouched();
  });

  it('with a certificate from another CA (right name): refused, nothing booked', async () => {
    const before = await refusals('untrusted-certificate');
    const cert = await issueClientCert(otherCa, 'kube-apiserver-webhook-client');
    expectRefused(
      await post(await forgedReview('checkout-0'), cert),
      'untrusted-certificate',
      'client certificate not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    );
    expect(await refusals('untrusted-certificate')).toBe(before + 1);
    await expectUntouched();
  });

  it('with a certificate of a CA the kubeconfig trusts, for another name: 403 naming it, nothing booked', async () => {
    const before = await refusals('name-not-allowed');
    const cert = await issueClientCert(bundledCa, 'mallory', { dns: ['mallory.example'] });
    const r = await post(await forgedReview('checkout-0'), cert);
    expectRefused(
      r,
      'name-not-allowed',
      'client certificate CN=mallory is not allowed to call this webhook (allowed: kube-apiserver-webhook-client)',
    );
    expect(await refusals('name-not-allowed')).toBe(before + 1);
    await expectUntouched();
  });

  it('with a trusted CA’s certificate, right name, but expired or not for client auth: refused', async () => {
    const before = await refusals('untrusted-certificate');
    const expired = await issueClientCert(bundledCa, 'kube-apiserver-webhook-client', { validDays: -1 });
    const serverOnly = await issueClientCert(bundledCa, 'kube-apiserver-webhook-client', { usage: 'server' });
    expectRefused(
      await post(await forgedReview('checkout-0'), expired),
      'untrusted-certificate',
      'client certificate not trusted (CERT_HAS_EXPIRED)',
    );
    expectRefused(
      await post(await forgedReview('checkout-0'), serverOnly),
      'untrusted-certificate',
      'client certificate not trusted (INVALID_PURPOSE)',
    );
    expect(await refusals('untrusted-certificate')).toBe(before + 2);
    await expectUntouched();
  });

  it('never wrote the status, and logged each cause once, without the body', async () => {
    expect(await webhookWrites()).toBe(0);
    const refused = logged
      .of('webhook', 'refused caller')
      .map(({ level, peer, reason, detail }) => ({ level, peer, reason, detail }));
    const peer = '127.0.0.1';
    expect(refused).toEqual([
      { level: 'warn', peer, reason: 'no-certificate', detail: 'no client certificate' },
      {
        level: 'warn',
        peer,
        reason: 'untrusted-certificate',
        detail: 'client certificate not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
      },
      {
        level: 'warn',
        peer,
        reason: 'name-not-allowed',
        detail:
          'client certificate CN=mallory is not allowed to call this webhook (allowed: kube-apiserver-webhook-client)',
      },
      {
        level: 'warn',
        peer,
        reason: 'untrusted-certificate',
        detail: 'client certificate not trusted (CERT_HAS_EXPIRED)',
      },
      {
        level: 'warn',
        peer,
        reason: 'untrusted-certificate',
        detail: 'client certificate not trusted (INVALID_PURPOSE)',
      },
    ]);
    expect(logged.lines.join('')).not.toMatch(/forged-|admission\.k8s\.io|oldObject/);
  });

  it('a real deletion through the API server is judged as before: admitted and booked', async () => {
    await cluster.core.deleteNamespacedPod({ namespace: ns, name: 'checkout-1' });
    expect(await podGone(cluster.core, ns, 'checkout-1')).toBe(true);
    const p = await getProtector(custom, ns, 'checkout');
    const booked = bucketsOf(p, CELL);
    // booked by the webhook (the aggregator may already have counted the pod gone)
    expect(booked.length === 1 || p.status.summary.aggregatedAvailableReplicas === 3).toBe(true);
    expect(p.status.summary.estimatedAvailableReplicas).toBe(3);
    expect(await webhookWrites()).toBeGreaterThan(0);
  });

  it('the API server’s own certificate, posted straight, is heard: the forged body is judged', async () => {
    // the control: what the refusals above kept out would have been judged like any review
    // (a dry run, so it books nothing)
    const body = await forgedReview('checkout-2');
    body.request.dryRun = true;
    const r = await post(body, apiserverCert(cluster));
    expect(r).toMatchObject({ ok: true, status: 200 });
    if (r.ok) expect(r.json.response).toMatchObject({ uid: body.request.uid });
    expect(protection.decisions.recent(KEY)).toContainEqual(
      expect.objectContaining({ requester: 'mallory', pod: `${ns}/checkout-2`, dryRun: true }),
    );
  });

  it('another cell’s API server cannot speak for this cell: 403, nothing booked', async () => {
    const before = await refusals('wrong-cell');
    const body = await forgedReview('checkout-2');
    const r = await post(body, apiserverCert(west));
    expectRefused(
      r,
      'wrong-cell',
      `client certificate "kube-apiserver-webhook-client" is not signed by a CA trusted for cell "${CELL}"`,
    );
    // and this cell's API server not for the other one
    const back = await post(body, apiserverCert(cluster), WEST);
    expect(back).toMatchObject({ ok: true, status: 403 });
    expect(await refusals('wrong-cell')).toBe(before + 2);
    expect(
      bucketsOf(await getProtector(custom, ns, 'checkout'), CELL).map((b: any) => b.podName),
    ).not.toContain('checkout-2');
  });
});

describe('a cell whose kubeconfig has no CA, and no caFile', () => {
  it('is a startup error naming the field and the context, and nothing is started or registered', async () => {
    const vwcUrl = async () =>
      (
        await west.kc
          .makeApiClient(k8s.AdmissionregistrationV1Api)
          .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' })
      ).webhooks?.[0].clientConfig.url;
    const before = await vwcUrl();
    // the same cluster, reached without a CA (the system trust store would be used)
    const current = west.kc.getCurrentCluster()!;
    const noCa = new k8s.KubeConfig();
    noCa.loadFromOptions({
      clusters: [{ ...current, caData: undefined, skipTLSVerify: true }],
      users: west.kc.users,
      contexts: west.kc.contexts,
      currentContext: west.kc.currentContext,
    });
    const started = startProtectionAlone({
      config: { webhook: { port: 0, host: '127.0.0.1', register: true } },
      clusters: [{ id: 'lab', context: 'lab-context', kc: noCa }],
    });
    await expect(started).rejects.toThrow(
      'protection.webhook.clientAuth.caFile: not given, and the kubeconfig of context "lab-context" (cell "lab-context") has no certificate-authority',
    );
    expect(await vwcUrl()).toBe(before);
  });
});

describe('clientAuth.required: false (what it gives up)', () => {
  let open: ProtectionService | undefined;
  const openLog = captureLogs();

  afterAll(async () => {
    await open?.stop();
  });

  it('warns at start, and hears a forged review with no certificate: quota is booked for nothing', async () => {
    // a second webhook on the same protectors, not registered, its aggregators idle
    open = await startProtectionAlone({
      config: {
        webhook: { port: 0, host: '127.0.0.1', register: false, clientAuth: { required: false } },
        aggregator: {
          protectorSelector: 'palisade-test/none=true',
          updateTrigger: { enabled: false, namespace: 'default', intervalMillis: 1000 },
        },
        generator: { enabled: false, workloadSelector: '' },
      },
      clusters: [{ id: 'embedded', context: CELL, kc: await palisadeKc(cluster.kc) }],
      logger: openLog.logger,
    });
    expect(openLog.of('webhook', 'the webhook accepts any caller')).toEqual([
      expect.objectContaining({ level: 'warn', setting: 'protection.webhook.clientAuth.required: false' }),
    ]);
    // once checkout-1's deletion is counted and its bucket gone: 3 available, room for one
    await eventually(
      () => {
        const p = open!.store.get(KEY)?.protector;
        return p?.status?.summary?.aggregatedAvailableReplicas === 3 && bucketsOf(p, CELL).length === 0;
      },
      'the open webhook sees 3 available and no bucket',
      15_000,
    );
    const seen = recordVersions(protection, KEY);
    const body = await forgedReview('checkout-3');
    const r = await postReview(`${open.webhook.url}/admission/${CELL}`, body, open.webhook.caPem);
    expect(r).toMatchObject({ ok: true, status: 200 });
    if (r.ok) expect(r.json.response).toMatchObject({ uid: body.request.uid, allowed: true });
    await eventually(
      () =>
        seen.some(
          (p) =>
            bucketsOf(p, CELL).some((b: any) => b.podName === 'checkout-3') &&
            p.status.summary.estimatedAvailableReplicas === 2,
        ),
      'a bucket booked for checkout-3 (estimated 3 -> 2)',
      5_000,
    );
    // nothing was deleted: the booking is for a deletion that never happened
    expect(
      (await cluster.core.readNamespacedPod({ namespace: ns, name: 'checkout-3' })).metadata
        ?.deletionTimestamp,
    ).toBeUndefined();
  });
});
