// The instance-ID endpoint behind the console's gate, on the embedded cluster and (with
// PALISADE_CLUSTER=real) on kube-apiserver: a pod may ask only for itself, with its own
// pod-bound ServiceAccount token; IDs are released when the workload shrinks and stale entries
// dropped when the map is full; a map it cannot read is refused and left as it is; the API
// server's 256 KiB annotation limit comes back in its own words with the map unchanged.
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INSTANCE_IDS_ANNOTATION } from '../../lib/instanceIds/types.js';
import { eventually, onRealControlPlane } from '../../sim/apiserver/test/harness.js';
import { startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { type ClusterAndConsole, rawRequest, startClusterAndConsole } from '../test/consoleHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { ask, deployment, livePods, mapOf, NOWHERE, podToken, serviceAccountKc } from './test/helpers.js';

const NS = 'ids';
let h: ClusterAndConsole;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let url: string;

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const setMap = (name: string, map: string | null, extra: Record<string, string | null> = {}) =>
  apps.patchNamespacedDeployment(
    {
      namespace: NS,
      name,
      body: { metadata: { annotations: { [INSTANCE_IDS_ANNOTATION]: map, ...extra } } },
    },
    merge,
  );
const nameOf = (p: k8s.V1Pod) => p.metadata!.name!;

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'ids-endpoint',
    rack: 'e',
    count: 2,
    // the collector would drop stopped holders beside the requests, moving the maps (and the
    // compare-and-swap counts) the tests read: its own tests are collector.int.test.ts
    console: { instanceIdNamespaces: [NS], instanceIdSweepMs: 3_600_000 },
  });
  core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
  apps = h.cluster.kc.makeApiClient(k8s.AppsV1Api);
  url = h.console.url;
  await createReadyNamespace(core, NS);
}, 180_000);

afterAll(() => h?.stop());

describe('a pod may ask only for itself', () => {
  let a: k8s.V1Pod;
  let b: k8s.V1Pod;
  let tokenA: string;

  beforeAll(async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'who', 2) });
    [a, b] = await livePods(core, NS, 'who', 2);
    tokenA = await podToken(core, a);
  });

  it('with its own token, it gets its ID, and the same one again', async () => {
    const first = await ask(url, 'acquire', tokenA, { namespace: NS, pod: nameOf(a) });
    expect(first).toEqual({
      status: 200,
      body: { id: 0, replicas: 2, workload: { kind: 'Deployment', namespace: NS, name: 'who' }, retries: 0 },
    });
    expect((await ask(url, 'acquire', tokenA, { namespace: NS, pod: nameOf(a) })).body.id).toBe(0);
    expect(await mapOf(apps, NS, 'who')).toBe(`{"0":"${nameOf(a)}"}`);
  });

  it('refuses a token bound to another pod, saying whose it is', async () => {
    const r = await ask(url, 'acquire', tokenA, { namespace: NS, pod: nameOf(b) });
    expect(r).toEqual({
      status: 403,
      body: {
        code: 'not_this_pod',
        error: `the token is bound to pod ${NS}/${nameOf(a)}, not ${NS}/${nameOf(b)}: a pod may acquire only its own instance ID`,
      },
    });
    const release = await ask(url, 'release', tokenA, { namespace: NS, pod: nameOf(b) });
    expect(release.body.code).toBe('not_this_pod');
    expect(await mapOf(apps, NS, 'who')).toBe(`{"0":"${nameOf(a)}"}`);
  });

  it('refuses tokens that are not a pod: a ServiceAccount token bound to nothing, a person, garbage', async () => {
    const unbound = (
      await core.createNamespacedServiceAccountToken({
        namespace: NS,
        name: 'default',
        body: { spec: { audiences: [], expirationSeconds: 600 } },
      })
    ).status!.token;
    const r = await ask(url, 'acquire', unbound, { namespace: NS, pod: nameOf(b) });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      code: 'not_a_pod_token',
      error: `the token of ServiceAccount ${NS}/default is not bound to a pod: send the pod's own projected token (/var/run/secrets/kubernetes.io/serviceaccount/token), not a Secret-based one or one requested without a boundObjectRef`,
    });
    const person = await ask(url, 'acquire', h.cluster.users.admin.token, { namespace: NS, pod: nameOf(b) });
    expect(person.status).toBe(403);
    expect(person.body).toEqual({
      code: 'not_a_pod_token',
      error:
        "the token authenticates as admin, not a ServiceAccount: send the pod's own ServiceAccount token",
    });
    const garbage = await ask(url, 'acquire', 'not-a-token', { namespace: NS, pod: nameOf(b) });
    expect(garbage.status).toBe(401);
    expect(garbage.body.code).toBe('unauthenticated');
    expect(garbage.body.error).toMatch(/^no cluster accepts the token/);
    expect(await mapOf(apps, NS, 'who')).toBe(`{"0":"${nameOf(a)}"}`);
  });

  it('the gate wants a bearer token: none, or a session cookie, is 401 before anything is read', async () => {
    const none = await ask(url, 'acquire', undefined, { namespace: NS, pod: nameOf(a) });
    expect(none).toEqual({
      status: 401,
      body: {
        code: 'unauthenticated',
        error:
          "send the pod's ServiceAccount token as Authorization: Bearer <token> (a session is not accepted here)",
      },
    });
    const host = `127.0.0.1:${h.console.port}`;
    const signIn = await rawRequest(
      h.console.port,
      'POST',
      '/auth/token',
      { host, origin: url, 'content-type': 'application/json' },
      JSON.stringify({ token: h.cluster.users.admin.token }),
    );
    const cookie = String(signIn.headers['set-cookie'] ?? '').split(';')[0];
    expect(cookie).toMatch(/^palisade_session_\d+=./);
    const withSession = await rawRequest(
      h.console.port,
      'POST',
      '/instance-ids/acquire',
      { host, origin: url, cookie, 'content-type': 'application/json' },
      JSON.stringify({ namespace: NS, pod: nameOf(a) }),
    );
    expect(withSession.status).toBe(401);
    expect(JSON.parse(withSession.body).code).toBe('unauthenticated');
  });

  it('a malformed request is a 400 naming the field; only POST is taken', async () => {
    const bad = await ask(url, 'acquire', tokenA, { namespace: NS, pod: 'Not_A_Name' });
    expect(bad).toEqual({
      status: 400,
      body: { code: 'bad_request', error: 'pod: must be a lowercase RFC 1123 name' },
    });
    expect((await ask(url, 'acquire', tokenA, '{')).body).toEqual({
      code: 'bad_request',
      error: 'the body is not valid JSON',
    });
    const get = await rawRequest(h.console.port, 'GET', '/instance-ids/acquire', {
      host: `127.0.0.1:${h.console.port}`,
      authorization: `Bearer ${tokenA}`,
    });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('a token whose pod is gone no longer takes anything', async () => {
    const tokenB = await podToken(core, b);
    await core.deleteNamespacedPod({ namespace: NS, name: nameOf(b) });
    // the replacement has another name; b's token is refused by the cluster (or, within
    // kube-apiserver's 10 s token cache, by Palisade's live read of the pod)
    const r = await ask(url, 'acquire', tokenB, { namespace: NS, pod: nameOf(b) });
    expect([401, 404]).toContain(r.status);
    expect(['unauthenticated', 'pod_not_found']).toContain(r.body.code);
  });

  it('a console for which the cluster is read-only gives no IDs', async () => {
    const readOnly = await startConsole({
      clusters: await clustersFromKubeconfig(join(h.dir, 'kubeconfig'), { modeOf: () => 'read-only' }),
      ui: false,
      fencing: false,
    });
    try {
      const r = await ask(readOnly.url, 'acquire', tokenA, { namespace: NS, pod: nameOf(a) });
      expect(r).toEqual({
        status: 403,
        body: {
          code: 'read_only',
          error:
            'cluster "palisade-embedded" is read-only: Palisade changes nothing there, instance-ID maps included',
        },
      });
    } finally {
      await readOnly.stop();
    }
  });

  it('release gives the ID back; releasing again is a no-op', async () => {
    expect((await ask(url, 'release', tokenA, { namespace: NS, pod: nameOf(a) })).body).toEqual({
      released: 0,
      workload: { kind: 'Deployment', namespace: NS, name: 'who' },
      retries: 0,
    });
    expect(await mapOf(apps, NS, 'who')).toBe('{}');
    expect((await ask(url, 'release', tokenA, { namespace: NS, pod: nameOf(a) })).body.released).toBeNull();
  });
});

describe('only workloads that opted in, where palisade.yaml allows, as far as Palisade is granted', () => {
  it('refuses a workload that is not labelled to opt in, and writes nothing', async () => {
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(NS, 'plain', 1, { optIn: false }),
    });
    const [p] = await livePods(core, NS, 'plain', 1);
    const r = await ask(url, 'acquire', await podToken(core, p), { namespace: NS, pod: nameOf(p) });
    expect(r).toEqual({
      status: 403,
      body: {
        code: 'not_enabled',
        error: `Deployment ${NS}/plain has not opted in to instance IDs: Palisade patches only workloads labelled palisade.dev/instance-ids-enabled=true (kubectl label deployment/plain -n ${NS} palisade.dev/instance-ids-enabled=true)`,
      },
    });
    expect(await mapOf(apps, NS, 'plain')).toBeUndefined();
  });

  it('refuses a namespace palisade.yaml does not list', async () => {
    const elsewhere = await startConsole({
      clusters: await clustersFromKubeconfig(join(h.dir, 'kubeconfig')),
      ui: false,
      fencing: false,
      instanceIdNamespaces: ['shop'],
    });
    try {
      await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'unlisted', 1) });
      const [p] = await livePods(core, NS, 'unlisted', 1);
      const r = await ask(elsewhere.url, 'acquire', await podToken(core, p), {
        namespace: NS,
        pod: nameOf(p),
      });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('not_enabled');
      expect(r.body.error).toMatch(
        new RegExp(`^namespace ${NS} is not in palisade.yaml instanceIds.namespaces \\(\\[shop\\]\\)`),
      );
      expect(await mapOf(apps, NS, 'unlisted')).toBeUndefined();
    } finally {
      await elsewhere.stop();
    }
  });

  it('names the grant the API server says is missing (Palisade may get the workload, not patch it)', async () => {
    const rbac = h.cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'ids-limited' } } });
    const subjects = [{ kind: 'ServiceAccount', name: 'ids-limited', namespace: NS }];
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'ids-limited' },
        rules: [
          { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
          { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get'] },
          { apiGroups: ['palisade.dev'], resources: ['nodefences'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'ids-limited' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ids-limited' },
        subjects,
      },
    });
    await rbac.createNamespacedRole({
      namespace: NS,
      body: {
        metadata: { name: 'ids-limited' },
        rules: [
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'], resourceNames: ['granted'] },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: NS,
      body: {
        metadata: { name: 'ids-limited' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ids-limited' },
        subjects,
      },
    });
    const kc = await serviceAccountKc(h.cluster.kc, NS, 'ids-limited');
    const limited = await startConsole({
      clusters: [{ id: 'palisade-embedded', context: kc.getCurrentContext(), kc }],
      ui: false,
      fencing: false,
      instanceIdNamespaces: [NS],
    });
    try {
      await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'granted', 1) });
      const [p] = await livePods(core, NS, 'granted', 1);
      const token = await podToken(core, p);
      const r = await eventually(async () => {
        const a = await ask(limited.url, 'acquire', token, { namespace: NS, pod: nameOf(p) });
        // the Role may take a moment to be in force
        return a.body.code === 'not_permitted' && a;
      }, 'the refusal naming the grant');
      expect(r.status).toBe(403);
      expect(r.body.error).toMatch(
        new RegExp(
          `^the API server forbade it \\(.*deployments.apps "granted" is forbidden: User "system:serviceaccount:${NS}:ids-limited" cannot patch resource "deployments" in API group "apps" in the namespace "${NS}".*\\): grant Palisade's identity get, patch on deployments.apps in namespace ${NS} \\(or a Role with resourceNames: \\[granted\\]\\)$`,
        ),
      );
      expect(await mapOf(apps, NS, 'granted')).toBeUndefined();
    } finally {
      await limited.stop();
    }
  });
});

describe('the map', () => {
  let staleTries = 0;

  it('entries at or above a shrunk replica count are released; stale entries make room once their pods are known to have stopped', async () => {
    // running pods: an unscheduled one runs nowhere, and its entry would count as stopped at once
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(NS, 'shrink', 3, { runs: true }),
    });
    const pods = await livePods(core, NS, 'shrink', 3);
    const tokens = await Promise.all(pods.map((p) => podToken(core, p)));
    const ids = await Promise.all(
      pods.map(
        async (p, i) => (await ask(url, 'acquire', tokens[i], { namespace: NS, pod: nameOf(p) })).body.id,
      ),
    );
    expect([...ids].sort()).toEqual([0, 1, 2]);
    // scaled down to 2: one pod goes, its entry stays for now
    await apps.patchNamespacedDeploymentScale(
      { namespace: NS, name: 'shrink', body: { spec: { replicas: 2 } } },
      merge,
    );
    const left = await livePods(core, NS, 'shrink', 2);
    const tokenOf = (p: k8s.V1Pod) => tokens[pods.findIndex((x) => nameOf(x) === nameOf(p))];
    // each pod asks again: an ID of 2 is out of range and given up for a free one, or for the
    // one of the pod that went, once its kubelet confirmed it stopped (until then: wait)
    for (const p of left) {
      const r = await eventually(
        async () => {
          const a = await ask(url, 'acquire', tokenOf(p), { namespace: NS, pod: nameOf(p) });
          if (a.status === 409) expect(a.body.code).toBe('holder_not_stopped');
          return a.status === 200 && a;
        },
        `${nameOf(p)} to get an ID below 2`,
      );
      expect(r.body.id).toBeLessThan(2);
    }
    const names = left.map(nameOf).sort();
    const map = JSON.parse((await mapOf(apps, NS, 'shrink'))!);
    expect(Object.keys(map).sort()).toEqual(['0', '1']);
    expect(Object.values(map).sort()).toEqual(names);
  });

  it('when no ID is free, drops the entries of pods known to have stopped, and has the others wait', async () => {
    // a name per try: a retry must not meet its first try's Deployment
    const W = `stale-${++staleTries}`;
    const HELD = `${W}-held`;
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(NS, W, 2, { runs: true }),
    });
    const [p, q] = await livePods(core, NS, W, 2);
    // a pod held by a finalizer stays, terminating, after its deletion: never scheduled, it ran nowhere
    await core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: HELD, labels: { app: W }, finalizers: ['palisade.dev/test-hold'] },
        spec: { nodeSelector: NOWHERE, containers: [{ name: 'app', image: 'registry.example/app:1.0' }] },
      },
    });
    await core.deleteNamespacedPod({ namespace: NS, name: HELD });
    // "gone-pod": a name nothing is known of (no pod, no departure seen, no node recorded)
    await setMap(W, `{"0":"gone-pod","1":"${HELD}"}`);
    // this workload's live judgements and lost writes, counted on it alone: the console's stats
    // are shared, and a release left over from an earlier test moves them too (x30: 4, not 3)
    type Of = { ref: { name: string } };
    const inner = h.console.instanceIds.cas.values().next().value! as unknown as {
      judge(w: Of): Promise<unknown>;
      patch(w: Of, next: unknown): Promise<void>;
    };
    const judge = vi.spyOn(inner, 'judge');
    const patch = vi.spyOn(inner, 'patch');
    const judged = () => judge.mock.calls.filter(([w]) => w.ref.name === W).length;
    const lost = () =>
      patch.mock.calls.filter(
        ([w], i) => w.ref.name === W && patch.mock.settledResults[i]?.type === 'rejected',
      ).length;
    const first = await ask(url, 'acquire', await podToken(core, p), { namespace: NS, pod: nameOf(p) });
    expect(first.body.id).toBe(1);
    expect(await mapOf(apps, NS, W)).toBe(`{"0":"gone-pod","1":"${nameOf(p)}"}`);
    // one live judgement per try: a write that lost the compare-and-swap (the Deployment's
    // status moved under it) reads, judges and writes again
    const retried = lost();
    expect(judged()).toBe(1 + retried);
    // q waits: the holder of 0 is not known to have stopped, and the answer says why
    const second = await ask(url, 'acquire', await podToken(core, q), { namespace: NS, pod: nameOf(q) });
    expect(second).toEqual({
      status: 409,
      body: {
        code: 'holder_not_stopped',
        error: `Deployment ${NS}/${W}: every instance ID is held, and no holder that stopped running is confirmed stopped yet (ID 0 held by gone-pod: gone from the API, and where it ran is not known: nothing confirms it stopped): an ID is given back once its pod's kubelet confirms the end from a Ready node, or its node is fenced`,
        waiting: [
          {
            id: 0,
            pod: 'gone-pod',
            reason: 'node-unknown',
            text: 'gone-pod: gone from the API, and where it ran is not known: nothing confirms it stopped',
          },
        ],
      },
    });
    expect(judged()).toBe(2 + retried);
    // a person who made sure it stopped removes the entry; q then takes 0
    await setMap(W, `{"1":"${nameOf(p)}"}`);
    expect(
      (await ask(url, 'acquire', await podToken(core, q), { namespace: NS, pod: nameOf(q) })).body.id,
    ).toBe(0);
    expect(judged()).toBe(2 + retried);
    // a stale entry while IDs are free stays: nothing is rewritten that need not be
    await setMap(W, `{"0":"${nameOf(p)}","5":"${HELD}"}`);
    await apps.patchNamespacedDeploymentScale(
      { namespace: NS, name: W, body: { spec: { replicas: 2 } } },
      merge,
    );
    expect(
      (await ask(url, 'acquire', await podToken(core, q), { namespace: NS, pod: nameOf(q) })).body.id,
    ).toBe(1);
    // 5 is out of range: released with that write
    expect(await mapOf(apps, NS, W)).toBe(`{"0":"${nameOf(p)}","1":"${nameOf(q)}"}`);
    await core.patchNamespacedPod(
      { namespace: NS, name: HELD, body: { metadata: { finalizers: null } } },
      merge,
    );
    judge.mockRestore();
    patch.mockRestore();
  });

  it('an invalid map is refused with what to do, and not rewritten', async () => {
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment(NS, 'broken', 1, { annotations: { [INSTANCE_IDS_ANNOTATION]: '{"01":"x"}' } }),
    });
    const [p] = await livePods(core, NS, 'broken', 1);
    const r = await ask(url, 'acquire', await podToken(core, p), { namespace: NS, pod: nameOf(p) });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      code: 'invalid_map',
      error:
        `the palisade.dev/instance-ids annotation of Deployment ${NS}/broken is not a valid instance-ID map: ` +
        'entry "01": the id must be a decimal integer >= 0 without leading zeros. Palisade does not rewrite a map it cannot read: ' +
        `correct it (kubectl annotate deployment/broken -n ${NS} --overwrite palisade.dev/instance-ids='{"0":"<pod name>"}'), ` +
        `or remove it to start over (kubectl annotate deployment/broken -n ${NS} palisade.dev/instance-ids-) and let the pods acquire again`,
    });
    expect(await mapOf(apps, NS, 'broken')).toBe('{"01":"x"}');
  });

  it("the 256 KiB annotation limit is the API server's own refusal; the map stays as it was", async () => {
    // the other annotations leave room for the map as it is, not for one entry more
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment(NS, 'full', 2) });
    const [p, q] = await livePods(core, NS, 'full', 2);
    const tp = await podToken(core, p);
    expect((await ask(url, 'acquire', tp, { namespace: NS, pod: nameOf(p) })).status).toBe(200);
    const d = await apps.readNamespacedDeployment({ namespace: NS, name: 'full' });
    const used = Object.entries(d.metadata!.annotations!).reduce((n, [k, v]) => n + k.length + v.length, 0);
    const key = 'example.com/padding';
    await setMap('full', `{"0":"${nameOf(p)}"}`, { [key]: 'x'.repeat(262_144 - used - key.length) });
    const before = await mapOf(apps, NS, 'full');
    const r = await ask(url, 'acquire', await podToken(core, q), { namespace: NS, pod: nameOf(q) });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('rejected');
    expect(r.body.error).toBe(
      `the API server refused the new instance-ID map of Deployment ${NS}/full: HTTP 422: Deployment.apps "full" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes`,
    );
    expect(await mapOf(apps, NS, 'full')).toBe(before);
    // p still holds its ID: asking again writes nothing, so nothing is refused
    expect((await ask(url, 'acquire', tp, { namespace: NS, pod: nameOf(p) })).body.id).toBe(0);
  });
});

describe.skipIf(!onRealControlPlane)(
  'Jobs (kube-controller-manager runs them; the embedded cluster serves no batch/v1)',
  () => {
    it("a Job's pods take IDs below its parallelism, kept on the Job", async () => {
      const batch = h.cluster.kc.makeApiClient(k8s.BatchV1Api);
      await batch.createNamespacedJob({
        namespace: NS,
        body: {
          metadata: { name: 'crunch', labels: { 'palisade.dev/instance-ids-enabled': 'true' } },
          spec: {
            parallelism: 2,
            completions: 4,
            template: {
              metadata: { labels: { app: 'crunch' } },
              spec: {
                restartPolicy: 'Never',
                nodeSelector: NOWHERE,
                containers: [{ name: 'app', image: 'registry.example/app:1.0' }],
              },
            },
          },
        },
      });
      const pods = await livePods(core, NS, 'crunch', 2);
      const ids = [];
      for (const p of pods) {
        const r = await ask(url, 'acquire', await podToken(core, p), { namespace: NS, pod: nameOf(p) });
        expect(r.body.workload).toEqual({ kind: 'Job', namespace: NS, name: 'crunch' });
        ids.push(r.body.id);
      }
      expect(ids.sort()).toEqual([0, 1]);
      const job = await batch.readNamespacedJob({ namespace: NS, name: 'crunch' });
      expect(Object.keys(JSON.parse(job.metadata!.annotations![INSTANCE_IDS_ANNOTATION]))).toEqual([
        '0',
        '1',
      ]);
    });
  },
);
