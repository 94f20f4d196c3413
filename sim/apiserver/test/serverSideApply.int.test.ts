// Server-side apply as far as the embedded API server models it (and kube-apiserver does the
// same, PALISADE_CLUSTER=real): an apply creates a missing object, merges into an existing
// one, and needs a fieldManager.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, raw, startCluster } from './harness.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c?.stop();
});

const path = '/api/v1/namespaces/default/configmaps/applied';
const apply = (body: string, query = '?fieldManager=test') =>
  raw(c, 'PATCH', `${path}${query}`, body, { 'content-type': 'application/apply-patch+yaml' });

describe('PATCH application/apply-patch+yaml', () => {
  it('creates, then merges, and refuses an apply without a fieldManager', async () => {
    const created = await apply(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n',
    );
    expect(created.code).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });
    const merged = await apply(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied","labels":{"x":"y"}},"data":{"a":"2"}}',
    );
    expect(merged.code).toBe(200);
    expect(merged.body).toMatchObject({ metadata: { labels: { x: 'y' } }, data: { a: '2' } });
    const noManager = await apply('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n', '');
    expect(noManager.code).toBe(422);
    expect(noManager.body.message).toContain('fieldManager: Required value');
  });
});
