// Attack (issue 23, 6): another person's socket.io session. The gate checked each polling
// request's credential, but engine.io then served whatever session the `sid` named: a viewer
// presenting their own valid token beside an admin's sid read the admin's stream (and could
// post into it, acting with the admin's scope). Now every engine.io session stays bound to the
// credential that opened it; a request or an upgrade naming its sid with any other is refused.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Console } from '../console.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { tokenOf } from '../test/client.js';
import { cookiesOf, rawRequest } from './harness.js';

let h: ClusterAndConsole;
let c: Console;
let admin: string;
let viewer: string;

beforeAll(async () => {
  h = await startClusterAndConsole({ name: 'attack-sid', rack: 's1', count: 1 });
  c = h.console;
  admin = tokenOf(h.cluster.kc);
  viewer = h.cluster.users.viewer.token;
}, 120_000);

afterAll(() => h?.stop());

const polling = (headers: Record<string, string>, sid?: string, body?: string) =>
  rawRequest(
    c.port,
    body === undefined ? 'GET' : 'POST',
    `/socket.io/?EIO=4&transport=polling${sid ? `&sid=${sid}` : ''}`,
    {
      host: `127.0.0.1:${c.port}`,
      origin: `http://127.0.0.1:${c.port}`,
      ...(body !== undefined ? { 'content-type': 'text/plain;charset=UTF-8' } : {}),
      ...headers,
    },
    body,
  );

/** An engine.io session opened with these headers, connected to socket.io's "/" namespace. */
async function open(headers: Record<string, string>): Promise<string> {
  const hs = await polling(headers);
  expect(hs.status).toBe(200);
  const sid = JSON.parse(hs.body.slice(hs.body.indexOf('{'))).sid as string;
  expect((await polling(headers, sid, '40')).status).toBe(200);
  return sid;
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe("another person's socket.io session", () => {
  it('cannot be read or written with another token', async () => {
    const sid = await open(bearer(admin));
    const read = await polling(bearer(viewer), sid);
    expect(read.status).toBe(403);
    expect(JSON.parse(read.body)).toMatchObject({ code: 'socket_not_yours' });
    const write = await polling(bearer(viewer), sid, '42["pods:subscribe",{}]');
    expect(write.status).toBe(403);
    // its owner carries on: the connection acknowledgement is still waiting for them
    const own = await polling(bearer(admin), sid);
    expect(own.status).toBe(200);
    expect(own.body).toContain('40{');
  });

  it('cannot be taken over by an upgrade to WebSocket', async () => {
    const sid = await open(bearer(admin));
    // a WebSocket handshake, as a browser sends it
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port: c.port,
        path: `/socket.io/?EIO=4&transport=websocket&sid=${sid}`,
        headers: {
          ...bearer(viewer),
          host: `127.0.0.1:${c.port}`,
          origin: `http://127.0.0.1:${c.port}`,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
        },
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        resolve(101);
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('is bound to the browser session that opened it, not merely to the same kind of credential', async () => {
    const signIn = async (token: string) => {
      const r = await rawRequest(
        c.port,
        'POST',
        '/auth/token',
        {
          host: `127.0.0.1:${c.port}`,
          origin: `http://127.0.0.1:${c.port}`,
          'content-type': 'application/json',
        },
        JSON.stringify({ token }),
      );
      expect(r.status).toBe(200);
      return cookiesOf(r.headers)[0];
    };
    const mine = await signIn(admin);
    const theirs = await signIn(viewer);
    const sid = await open({ cookie: mine });
    expect((await polling({ cookie: theirs }, sid)).status).toBe(403);
    // the same person's bearer token is another credential too
    expect((await polling(bearer(admin), sid)).status).toBe(403);
    expect((await polling({ cookie: mine }, sid)).status).toBe(200);
  });
});
