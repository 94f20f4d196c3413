// Attack (issue 23, 6): no body limit on /api/trpc. A 100 MB body was read, parsed and
// executed (the server's RSS grew by 390 MB and never came back). Now every route takes a body
// of at most its own size (lib/auth/gate.ts BODY_LIMITS): a larger Content-Length is refused
// with 413 before a byte is read, a chunked body is cut off at the same size, and routes that
// take no body (pages, sign-in, /metrics, health) answer reads only.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../../lib/auth/gate.js';
import type { Console } from '../console.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { tokenOf } from '../test/client.js';
import { rawRequest } from './harness.js';

let h: ClusterAndConsole;
let c: Console;
let admin: string;

beforeAll(async () => {
  h = await startClusterAndConsole({ name: 'attack-body', rack: 'o1', count: 1 });
  c = h.console;
  admin = tokenOf(h.cluster.kc);
}, 120_000);

afterAll(() => h?.stop());

const headers = () => ({
  host: `127.0.0.1:${c.port}`,
  authorization: `Bearer ${admin}`,
  'content-type': 'application/json',
});

/**
 * Send `total` bytes of a JSON-looking body in 64 KiB chunks (chunked when no length is
 * declared); resolve with the answer's status and how much had been sent when it came.
 */
function upload(
  path: string,
  total: number,
  declareLength: boolean,
): Promise<{ status: number; sentAtAnswer: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request({
      host: '127.0.0.1',
      port: c.port,
      method: 'POST',
      path,
      headers: { ...headers(), ...(declareLength ? { 'content-length': String(total) } : {}) },
    });
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sentAtAnswer: sent });
    });
    // the server may close the connection mid-upload once it has answered
    req.on('error', (e) => (answered ? undefined : reject(e)));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    req.write('{"cluster":"');
    pump();
  });
}

describe('bodies larger than a route takes', () => {
  it('a 100 MB Content-Length on /api/trpc is refused at once, before the body is read', async () => {
    const r = await upload('/api/trpc/infra.act', 100 * 1024 * 1024, true);
    expect(r.status).toBe(413);
    expect(r.sentAtAnswer).toBeLessThan(100 * 1024 * 1024);
  });

  it('a chunked body (no Content-Length) is cut off at the limit', async () => {
    const r = await upload('/api/trpc/infra.act', 8 * 1024 * 1024, false);
    expect(r.status).toBe(413);
  });

  it('the refusal says why, in the gate’s words, and closes the connection', async () => {
    const r = await rawRequest(c.port, 'POST', '/api/trpc/infra.act', {
      ...headers(),
      'content-length': String(BODY_LIMITS.trpc + 1),
    });
    // the body was never sent: the answer came first
    expect(r.status).toBe(413);
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.body)).toMatchObject({ code: 'body_too_large' });
  });

  it('sign-in takes at most its own size too', async () => {
    const r = await upload('/auth/token', BODY_LIMITS.auth + 64 * 1024, true);
    expect(r.status).toBe(413);
  });

  it('pages and /metrics take no body at all', async () => {
    for (const path of ['/', '/nodes', '/signin', '/metrics']) {
      const r = await rawRequest(
        c.port,
        'POST',
        path,
        { ...headers(), origin: `http://127.0.0.1:${c.port}` },
        '{}',
      );
      expect([path, r.status]).toEqual([path, 405]);
    }
  });

  it('a request within the limit still works', async () => {
    const r = await rawRequest(c.port, 'GET', '/api/trpc/clusters.list', headers());
    expect(r.status).toBe(200);
  });
});
