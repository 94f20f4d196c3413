import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, currentRv, raw, startCluster } from './harness.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
  await c.core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'keep' }, data: { a: '1' } },
  });
});
afterAll(() => c.stop());

// Every request here is wrong in some way; each must get a Status error with the
// expected code and leave the stored state exactly as it was.
const cases: {
  name: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  code: number;
  reason: string;
}[] = [
  {
    name: 'JSON array as object',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: '[1,2]',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'JSON scalar',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: '42',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'truncated JSON',
    method: 'PUT',
    path: '/api/v1/namespaces/default/configmaps/keep',
    body: '{"metadata":',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'wrong kind in body',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'wrong apiVersion in body',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: '{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"x"}}',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'namespace mismatch',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: '{"metadata":{"name":"x","namespace":"kube-system"}}',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'name mismatch on PUT',
    method: 'PUT',
    path: '/api/v1/namespaces/default/configmaps/keep',
    body: '{"metadata":{"name":"other"}}',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'stale resourceVersion on PUT',
    method: 'PUT',
    path: '/api/v1/namespaces/default/configmaps/keep',
    body: '{"metadata":{"name":"keep","resourceVersion":"1"},"data":{"a":"2"}}',
    code: 409,
    reason: 'Conflict',
  },
  {
    name: 'missing name',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: '{"metadata":{}}',
    code: 422,
    reason: 'Invalid',
  },
  {
    name: 'unknown patch type',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/keep',
    body: '{}',
    headers: { 'content-type': 'text/plain' },
    code: 415,
    reason: 'UnsupportedMediaType',
  },
  {
    name: 'JSON patch that is not a list',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/keep',
    body: '{"op":"add"}',
    headers: { 'content-type': 'application/json-patch+json' },
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'JSON patch on a missing path',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/keep',
    body: '[{"op":"replace","path":"/nope/x","value":1}]',
    headers: { 'content-type': 'application/json-patch+json' },
    code: 422,
    reason: 'Invalid',
  },
  { name: 'bad limit', method: 'GET', path: '/api/v1/configmaps?limit=abc', code: 400, reason: 'BadRequest' },
  {
    name: 'bad continue token',
    method: 'GET',
    path: '/api/v1/configmaps?limit=1&continue=%%%',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'bad label selector',
    method: 'GET',
    path: '/api/v1/configmaps?labelSelector=a%20in',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'bad propagation policy',
    method: 'DELETE',
    path: '/api/v1/namespaces/default/configmaps/keep?propagationPolicy=Sideways',
    code: 422,
    reason: 'Invalid',
  },
  {
    name: 'bad dryRun',
    method: 'DELETE',
    path: '/api/v1/namespaces/default/configmaps/keep?dryRun=Yes',
    code: 422,
    reason: 'Invalid',
  },
  { name: 'unknown resource', method: 'GET', path: '/api/v1/widgets', code: 404, reason: 'NotFound' },
  {
    name: 'cluster-scoped kind under a namespace',
    method: 'GET',
    path: '/api/v1/namespaces/default/nodes',
    code: 404,
    reason: 'NotFound',
  },
  {
    name: 'unknown subresource',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps/keep/status',
    code: 404,
    reason: 'NotFound',
  },
];

describe('bad input gets a clear error and changes nothing', () => {
  for (const t of cases) {
    it(t.name, async () => {
      const before = await raw(c, 'GET', '/api/v1/namespaces/default/configmaps/keep');
      const rv = await currentRv(c);
      const res = await raw(c, t.method, t.path, t.body, t.headers);
      expect(res.code).toBe(t.code);
      expect(res.body).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: t.reason,
        code: t.code,
      });
      expect(typeof res.body.message).toBe('string');
      expect(await currentRv(c)).toBe(rv);
      expect((await raw(c, 'GET', '/api/v1/namespaces/default/configmaps/keep')).text).toBe(before.text);
    });
  }

  it('a body over 3 MiB is refused with 413', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { x: 'y'.repeat(4 * 1024 * 1024) } });
    const res = await raw(c, 'POST', '/api/v1/namespaces/default/configmaps', big).catch((e) => ({
      code: -1,
      error: e,
    }));
    // the server may close the connection while the client is still sending; either way nothing is stored
    if ('body' in res) expect(res.code).toBe(413);
    expect((await raw(c, 'GET', '/api/v1/namespaces/default/configmaps/big')).code).toBe(404);
  });
});
