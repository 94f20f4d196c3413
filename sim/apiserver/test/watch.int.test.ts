import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, currentRv, eventually, startCluster } from './harness.js';

let c: Cluster;
beforeAll(async () => {
  // a tiny watch window and short watches make resumption and 410 easy to provoke
  c = await startCluster({ watchWindow: 10, maxWatchSeconds: 1, bookmarkIntervalMs: 200 });
  for (const ns of ['w1', 'w2', 'w410', 'noise'])
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
});
afterAll(() => c.stop());

interface Seen {
  type: string;
  obj: any;
}

function record(path: string, query: Record<string, string | number | boolean | undefined>) {
  const events: Seen[] = [];
  let done = false;
  let controller: AbortController | undefined;
  const started = new k8s.Watch(c.kc)
    .watch(
      path,
      query,
      (type, obj) => events.push({ type, obj }),
      () => {
        done = true;
      },
    )
    .then((ctl) => (controller = ctl));
  return { events, isDone: () => done, started, stop: () => controller?.abort() };
}

const cm = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  data: { v: '0' },
});

describe('watch', () => {
  it('replays from a resourceVersion in commit order, then streams live events', async () => {
    const first = await c.core.createNamespacedConfigMap({ namespace: 'w1', body: cm('a') });
    const from = first.metadata!.resourceVersion!;
    await c.core.patchNamespacedConfigMap(
      { name: 'a', namespace: 'w1', body: { data: { v: '1' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await c.core.createNamespacedConfigMap({ namespace: 'w1', body: cm('b') });
    const w = record('/api/v1/namespaces/w1/configmaps', { resourceVersion: from });
    await w.started;
    await c.core.deleteNamespacedConfigMap({ name: 'a', namespace: 'w1' });
    await eventually(() => w.events.length >= 3, 'three events');
    expect(w.events.map((e) => `${e.type} ${e.obj.metadata.name}`)).toEqual([
      'MODIFIED a',
      'ADDED b',
      'DELETED a',
    ]);
    const rvs = w.events.map((e) => Number(e.obj.metadata.resourceVersion));
    expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
    expect(rvs[0]).toBeGreaterThan(Number(from));
    w.stop();
  });

  it('sends the current state as ADDED when no resourceVersion is given', async () => {
    const w = record('/api/v1/namespaces/w1/configmaps', {});
    await eventually(() => w.events.some((e) => e.obj.metadata?.name === 'b'), 'snapshot');
    expect(w.events[0].type).toBe('ADDED');
    w.stop();
  });

  it('turns label-selector transitions into ADDED and DELETED', async () => {
    await c.core.createNamespacedConfigMap({ namespace: 'w2', body: cm('sel', { role: 'x' }) });
    const w = record('/api/v1/namespaces/w2/configmaps', {
      labelSelector: 'role=y',
      resourceVersion: await currentRv(c),
    });
    await w.started;
    const patch = (role: string) =>
      c.core.patchNamespacedConfigMap(
        { name: 'sel', namespace: 'w2', body: { metadata: { labels: { role } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    await patch('y');
    await c.core.patchNamespacedConfigMap(
      { name: 'sel', namespace: 'w2', body: { data: { v: '9' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await patch('z');
    await eventually(() => w.events.length >= 3, 'transitions');
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    w.stop();
  });

  it('answers a resourceVersion older than the window with ERROR 410 Expired', async () => {
    const old = await c.core.createNamespacedConfigMap({ namespace: 'noise', body: cm('old') });
    for (let i = 0; i < 15; i++)
      await c.core.createNamespacedConfigMap({ namespace: 'noise', body: cm(`n${i}`) });
    const w = record('/api/v1/namespaces/noise/configmaps', {
      resourceVersion: old.metadata!.resourceVersion,
    });
    await eventually(() => w.isDone(), 'the watch to end');
    expect(w.events).toHaveLength(1);
    expect(w.events[0].type).toBe('ERROR');
    expect(w.events[0].obj).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(w.events[0].obj.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it('sends bookmarks when asked and ends at timeoutSeconds', async () => {
    const w = record('/api/v1/namespaces/w1/configmaps', {
      allowWatchBookmarks: true,
      timeoutSeconds: 1,
      resourceVersion: await currentRv(c),
    });
    await eventually(() => w.isDone(), 'timeout');
    const bookmarks = w.events.filter((e) => e.type === 'BOOKMARK');
    expect(bookmarks.length).toBeGreaterThan(0);
    expect(bookmarks[0].obj).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(Number(bookmarks[0].obj.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it('an informer that gets 410 relists and converges on the server state', async () => {
    let lists = 0;
    const list = () => {
      lists++;
      return c.core.listNamespacedConfigMap({ namespace: 'w410' });
    };
    const informer = k8s.makeInformer(c.kc, '/api/v1/namespaces/w410/configmaps', list);
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    for (let i = 0; i < 3; i++)
      await c.core.createNamespacedConfigMap({ namespace: 'w410', body: cm(`keep${i}`) });
    // (besides the kube-root-ca.crt ConfigMap every namespace holds)
    await eventually(() => informer.list().length === 4, 'informer sees three objects');
    // writes elsewhere in the collection push the informer's version out of the window
    for (let i = 0; i < 25; i++)
      await c.core.createNamespacedConfigMap({ namespace: 'noise', body: cm(`x${i}`) });
    await c.core.deleteNamespacedConfigMap({ name: 'keep0', namespace: 'w410' });
    await c.core.createNamespacedConfigMap({ namespace: 'w410', body: cm('late') });
    for (let i = 0; i < 25; i++)
      await c.core.createNamespacedConfigMap({ namespace: 'noise', body: cm(`y${i}`) });
    await eventually(
      async () => {
        const server = (await c.core.listNamespacedConfigMap({ namespace: 'w410' })).items
          .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
          .sort();
        const cached = informer
          .list()
          .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
          .sort();
        return lists >= 2 && JSON.stringify(server) === JSON.stringify(cached);
      },
      'informer to relist and converge',
      20_000,
    );
    expect(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['keep1', 'keep2', 'kube-root-ca.crt', 'late']);
    expect(errors).toEqual([]);
    await informer.stop();
  });
});
