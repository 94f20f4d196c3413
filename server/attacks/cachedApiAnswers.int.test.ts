// Attack (issue 23, 6: "Cache-Control: no-store on API answers"): the API's answers are one
// person's view of the cluster, but tRPC answered without Cache-Control, so a browser's disk
// cache or a shared proxy could keep them and show them to whoever uses that browser or proxy
// next. Now every answer of the API, sign-in, socket.io and /metrics says no-store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Console } from '../console.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { tokenOf } from '../test/client.js';
import { rawRequest } from './harness.js';

let h: ClusterAndConsole;
let c: Console;
let admin: string;

beforeAll(async () => {
  h = await startClusterAndConsole({ name: 'attack-cache', rack: 'c1', count: 1 });
  c = h.console;
  admin = tokenOf(h.cluster.kc);
}, 120_000);

afterAll(() => h?.stop());

describe('answers that are one person’s view', () => {
  it.each([
    ['a tRPC query', '/api/trpc/clusters.list'],
    ['a tRPC batch', '/api/trpc/clusters.list,nodes.get?batch=1&input=%7B%7D'],
    ['a tRPC error', '/api/trpc/nodes.get?input=%7B%7D'],
    ['the session', '/auth/session'],
    ['a socket.io handshake', '/socket.io/?EIO=4&transport=polling'],
    ['/metrics', '/metrics'],
  ])('%s says no-store', async (_what, path) => {
    const r = await rawRequest(c.port, 'GET', path, {
      host: `127.0.0.1:${c.port}`,
      authorization: `Bearer ${admin}`,
    });
    expect(r.status).toBeLessThan(500);
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('a refusal says no-store too', async () => {
    const r = await rawRequest(c.port, 'GET', '/api/trpc/clusters.list', { host: `127.0.0.1:${c.port}` });
    expect(r.status).toBe(401);
    expect(r.headers['cache-control']).toBe('no-store');
  });
});
