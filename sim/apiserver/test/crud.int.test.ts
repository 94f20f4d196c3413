import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, failure, podSpec, raw, startCluster } from './harness.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(() => c.stop());

describe('CRUD with client-node', () => {
  it('creates, reads, updates and deletes a ConfigMap', async () => {
    const created = await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cfg' }, data: { a: '1' } },
    });
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.metadata?.creationTimestamp).toBeTruthy();
    const read = await c.core.readNamespacedConfigMap({ name: 'cfg', namespace: 'default' });
    expect(read.data).toEqual({ a: '1' });
    read.data = { a: '2' };
    const updated = await c.core.replaceNamespacedConfigMap({
      name: 'cfg',
      namespace: 'default',
      body: read,
    });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    await c.core.deleteNamespacedConfigMap({ name: 'cfg', namespace: 'default' });
    const gone = await failure(c.core.readNamespacedConfigMap({ name: 'cfg', namespace: 'default' }));
    expect(gone.code).toBe(404);
    expect(gone.status).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'configmaps "cfg" not found',
      details: { name: 'cfg', kind: 'configmaps' },
    });
  });

  it('rejects an update with a stale resourceVersion with the real 409', async () => {
    const cm = await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cas' }, data: { v: '0' } },
    });
    await c.core.replaceNamespacedConfigMap({
      name: 'cas',
      namespace: 'default',
      body: { ...cm, data: { v: '1' } },
    });
    const stale = await failure(
      c.core.replaceNamespacedConfigMap({
        name: 'cas',
        namespace: 'default',
        body: { ...cm, data: { v: '2' } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe('Conflict');
    expect(stale.status.message).toBe(
      'Operation cannot be fulfilled on configmaps "cas": the object has been modified; please apply your changes to the latest version and try again',
    );
    const now = await c.core.readNamespacedConfigMap({ name: 'cas', namespace: 'default' });
    expect(now.data).toEqual({ v: '1' });
  });

  it('shares one increasing resourceVersion across kinds', async () => {
    const a = await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'rv-a' } },
    });
    const b = await c.core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'rv-b' } },
    });
    const n = await c.core.createNode({ body: { metadata: { name: 'rv-node' } } });
    const rvs = [a, b, n].map((o) => Number(o.metadata?.resourceVersion));
    expect(rvs[1]).toBeGreaterThan(rvs[0]);
    expect(rvs[2]).toBeGreaterThan(rvs[1]);
  });

  it('generates names and reports AlreadyExists', async () => {
    const p = await c.core.createNamespacedPod({
      namespace: 'default',
      body: { ...podSpec(''), metadata: { generateName: 'gen-' } },
    });
    expect(p.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    const dup = await failure(
      c.core.createNamespacedPod({ namespace: 'default', body: podSpec(p.metadata!.name!) }),
    );
    expect(dup.code).toBe(409);
    expect(dup.status).toMatchObject({
      reason: 'AlreadyExists',
      message: `pods "${p.metadata?.name}" already exists`,
    });
  });

  it('defaults pods as the real API server does', async () => {
    const p = await c.core.createNamespacedPod({ namespace: 'default', body: podSpec('defaults') });
    expect(p.status?.phase).toBe('Pending');
    expect(p.spec?.terminationGracePeriodSeconds).toBe(30);
    expect(p.spec?.tolerations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: 'node.kubernetes.io/unreachable',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        }),
      ]),
    );
  });

  it('answers bad names and missing fields with Invalid and field causes, storing nothing', async () => {
    const bad = await failure(
      c.core.createNamespacedPod({ namespace: 'default', body: podSpec('Bad_Name') }),
    );
    expect(bad.code).toBe(422);
    expect(bad.status.reason).toBe('Invalid');
    expect(bad.status.message).toContain(
      'Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"',
    );
    expect(bad.status.details.causes[0]).toMatchObject({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
    });
    const noContainers = await failure(
      c.core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { name: 'empty' }, spec: { containers: [] } },
      }),
    );
    expect(noContainers.status.details.causes[0]).toMatchObject({
      field: 'spec.containers',
      reason: 'FieldValueRequired',
    });
    const list = await c.core.listNamespacedPod({
      namespace: 'default',
      fieldSelector: 'metadata.name=empty',
    });
    expect(list.items).toHaveLength(0);
  });

  it('answers malformed JSON with BadRequest and keeps running', async () => {
    const r = await raw(c, 'POST', '/api/v1/namespaces/default/configmaps', '{"metadata": {');
    expect(r.code).toBe(400);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    const ok = await raw(c, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(ok.code).toBe(200);
  });

  it('rejects objects in a missing namespace and unknown paths', async () => {
    const r = await failure(
      c.core.createNamespacedConfigMap({ namespace: 'nope', body: { metadata: { name: 'x' } } }),
    );
    expect(r.code).toBe(404);
    expect(r.status.message).toBe('namespaces "nope" not found');
    const unknown = await raw(c, 'GET', '/apis/example.com/v1/widgets');
    expect(unknown.code).toBe(404);
    const method = await raw(c, 'POST', '/api/v1/namespaces/default/configmaps/x');
    expect(method.code).toBe(405);
    expect(method.body.reason).toBe('MethodNotAllowed');
  });

  it('refuses requests without the bearer token', async () => {
    const r = await raw(c, 'GET', '/api/v1/pods', undefined, { authorization: 'Bearer wrong' });
    expect(r.code).toBe(401);
    expect(r.body.reason).toBe('Unauthorized');
  });

  it('filters lists by label and field selectors, and pages with limit/continue', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'sel' } } });
    for (let i = 0; i < 5; i++) {
      await c.core.createNamespacedPod({
        namespace: 'sel',
        body: podSpec(`p${i}`, {
          metadata: { name: `p${i}`, labels: { app: 'web', idx: String(i), tier: i % 2 ? 'odd' : 'even' } },
        }),
      });
    }
    const odd = await c.core.listNamespacedPod({ namespace: 'sel', labelSelector: 'tier=odd' });
    expect(odd.items.map((p) => p.metadata?.name)).toEqual(['p1', 'p3']);
    const setBased = await c.core.listNamespacedPod({
      namespace: 'sel',
      labelSelector: 'idx in (0,4),tier!=odd',
    });
    expect(setBased.items.map((p) => p.metadata?.name)).toEqual(['p0', 'p4']);
    const byName = await c.core.listNamespacedPod({
      namespace: 'sel',
      fieldSelector: 'metadata.name!=p0,status.phase=Pending',
    });
    expect(byName.items).toHaveLength(4);
    const badField = await failure(
      c.core.listNamespacedPod({ namespace: 'sel', fieldSelector: 'spec.bogus=1' }),
    );
    expect(badField.code).toBe(400);
    expect(badField.status.message).toContain('field label not supported: spec.bogus');
    const badLabel = await failure(c.core.listNamespacedPod({ namespace: 'sel', labelSelector: 'a in b' }));
    expect(badLabel.code).toBe(400);
    const page1 = await c.core.listNamespacedPod({ namespace: 'sel', limit: 2 });
    expect(page1.items.map((p) => p.metadata?.name)).toEqual(['p0', 'p1']);
    expect(page1.metadata?._continue).toBeTruthy();
    expect(page1.metadata?.remainingItemCount).toBe(3);
    const page2 = await c.core.listNamespacedPod({
      namespace: 'sel',
      limit: 2,
      _continue: page1.metadata?._continue,
    });
    expect(page2.items.map((p) => p.metadata?.name)).toEqual(['p2', 'p3']);
    const page3 = await c.core.listNamespacedPod({
      namespace: 'sel',
      limit: 2,
      _continue: page2.metadata?._continue,
    });
    expect(page3.items.map((p) => p.metadata?.name)).toEqual(['p4']);
    expect(page3.metadata?._continue).toBeFalsy();
  });

  it('applies merge, JSON and strategic merge patches', async () => {
    await c.apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'patchme' },
        spec: {
          selector: { matchLabels: { app: 'p' } },
          template: {
            metadata: { labels: { app: 'p' } },
            spec: {
              containers: [
                { name: 'a', image: 'a:1' },
                { name: 'b', image: 'b:1' },
              ],
            },
          },
        },
      },
    });
    const merge = await c.apps.patchNamespacedDeployment(
      { name: 'patchme', namespace: 'default', body: { spec: { replicas: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(merge.spec?.replicas).toBe(3);
    expect(merge.metadata?.generation).toBe(2);
    const sm = await c.apps.patchNamespacedDeployment(
      {
        name: 'patchme',
        namespace: 'default',
        body: { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(sm.spec?.template.spec?.containers.map((x) => `${x.name}=${x.image}`)).toEqual(['a=a:1', 'b=b:2']);
    const jp = await c.apps.patchNamespacedDeployment(
      { name: 'patchme', namespace: 'default', body: [{ op: 'replace', path: '/spec/replicas', value: 1 }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    expect(jp.spec?.replicas).toBe(1);
    const failedTest = await failure(
      c.apps.patchNamespacedDeployment(
        {
          name: 'patchme',
          namespace: 'default',
          body: [
            { op: 'test', path: '/spec/replicas', value: 7 },
            { op: 'replace', path: '/spec/replicas', value: 9 },
          ],
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      ),
    );
    expect(failedTest.code).toBe(422);
    expect(
      (await c.apps.readNamespacedDeployment({ name: 'patchme', namespace: 'default' })).spec?.replicas,
    ).toBe(1);
    // a resourceVersion a JSON patch writes is a precondition, as with a merge patch
    const stale = await failure(
      c.apps.patchNamespacedDeployment(
        {
          name: 'patchme',
          namespace: 'default',
          body: [
            { op: 'replace', path: '/metadata/resourceVersion', value: '1' },
            { op: 'replace', path: '/spec/replicas', value: 5 },
          ],
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      ),
    );
    expect(stale.code).toBe(409);
  });

  it('does nothing on server-side dry-run writes', async () => {
    const dry = await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'dry' } },
      dryRun: 'All',
    });
    expect(dry.metadata?.name).toBe('dry');
    expect((await failure(c.core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' }))).code).toBe(
      404,
    );
    await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'dry2' }, data: { a: '1' } },
    });
    const before = await c.core.readNamespacedConfigMap({ name: 'dry2', namespace: 'default' });
    const dryUpdate = await c.core.replaceNamespacedConfigMap({
      name: 'dry2',
      namespace: 'default',
      body: { ...before, data: { a: '2' } },
      dryRun: 'All',
    });
    expect(dryUpdate.data).toEqual({ a: '2' });
    await c.core.deleteNamespacedConfigMap({ name: 'dry2', namespace: 'default', dryRun: 'All' });
    const after = await c.core.readNamespacedConfigMap({ name: 'dry2', namespace: 'default' });
    expect(after.data).toEqual({ a: '1' });
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    const bad = await raw(
      c,
      'POST',
      '/api/v1/namespaces/default/configmaps?dryRun=Some',
      '{"metadata":{"name":"x"}}',
    );
    // kube-apiserver: 422 Invalid on CreateOptions.meta.k8s.io
    expect(bad.code).toBe(422);
  });

  it('labels every namespace with its own name, and keeps the label on updates', async () => {
    const def = await c.core.readNamespace({ name: 'default' });
    expect(def.metadata?.labels).toEqual({ 'kubernetes.io/metadata.name': 'default' });
    await c.core.createNamespace({ body: { metadata: { name: 'labelled', labels: { team: 'sre' } } } });
    const ns = await c.core.readNamespace({ name: 'labelled' });
    expect(ns.metadata?.labels).toEqual({ team: 'sre', 'kubernetes.io/metadata.name': 'labelled' });
    ns.metadata!.labels = { team: 'sre', 'kubernetes.io/metadata.name': 'other' };
    const updated = await c.core.replaceNamespace({ name: 'labelled', body: ns });
    expect(updated.metadata?.labels?.['kubernetes.io/metadata.name']).toBe('labelled');
  });
});
