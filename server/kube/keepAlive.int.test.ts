// The keep-alive JSON client against a local HTTPS server that answers the way a real
// kube-apiserver does for bodies over 2 KiB: chunked, on kept-alive connections — exactly
// what makes client-node's node-fetch fail with "Premature close".
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../../lib/pki/certificates.js';
import { KeepAliveJson, KubeHttpError } from './keepAlive.js';

const big = { items: Array.from({ length: 300 }, (_, i) => ({ i, pad: 'x'.repeat(40) })) };
let server: https.Server;
let kc: k8s.KubeConfig;
const connections = { count: 0 };
const seen: { auth?: string; body?: string }[] = [];

beforeAll(async () => {
  const ca = await createCertificateAuthority('test-ca');
  const cert = await ca.issueServing('127.0.0.1', ['127.0.0.1']);
  server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body });
      if (req.url?.endsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ kind: 'Status', message: 'not found', code: 404 }));
      }
      // no content-length: Node sends it chunked, in two writes
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = JSON.stringify(req.method === 'PUT' ? JSON.parse(body) : big);
      res.write(text.slice(0, 1000));
      setImmediate(() => res.end(text.slice(1000)));
    });
  });
  server.on('connection', () => connections.count++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        caData: Buffer.from(ca.certPem).toString('base64'),
      },
    ],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
});

afterAll(() => server.close());

describe('KeepAliveJson', () => {
  it('reads chunked bodies over reused connections without a premature close', async () => {
    const client = new KeepAliveJson(kc);
    const before = connections.count;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 ? client.request<typeof big>('GET', '/big') : client.request('PUT', '/x', { n: i }),
      ),
    );
    expect(
      results.filter((r, i) =>
        i % 2 ? (r as typeof big).items.length === 300 : (r as { n: number }).n === i,
      ),
    ).toHaveLength(200);
    // kept alive: far fewer connections than requests
    expect(connections.count - before).toBeLessThanOrEqual(16);
    expect(seen.at(-1)?.auth).toBe('Bearer secret-token');
    client.close();
  });

  it('turns a non-2xx answer into an error with the status code and message', async () => {
    const client = new KeepAliveJson(kc);
    const err = (await client.request('GET', '/missing').catch((e: unknown) => e)) as KubeHttpError;
    expect(err).toBeInstanceOf(KubeHttpError);
    expect(err.code).toBe(404);
    expect(err.message).toBe('GET /missing: HTTP 404: not found');
    client.close();
  });

  it('retries once on a fresh connection when the server closed an idle one', async () => {
    const client = new KeepAliveJson(kc);
    await client.request('GET', '/big');
    // the server drops every idle connection, as one restarting or timing out idle sockets
    server.closeIdleConnections();
    await expect(client.request('GET', '/big')).resolves.toMatchObject({ items: expect.any(Array) });
    client.close();
  });
});
