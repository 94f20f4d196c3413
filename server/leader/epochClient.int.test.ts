// The leader's clients stamp the epoch on every write and send nothing while not leading.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaderClient, NotLeading } from './epochClient.js';

let server: http.Server;
const seen: { method: string; url: string }[] = [];
let kc: k8s.KubeConfig;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    const body = JSON.stringify({
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: { name: 'x' },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('leader clients', () => {
  it('stamp the epoch on creates, updates and patches, not on reads', async () => {
    let epoch: number | undefined = 7;
    const api = leaderClient(kc, k8s.CoordinationV1Api, () => epoch);
    seen.length = 0;
    await api.readNamespacedLease({ namespace: 'ns', name: 'x' });
    await api.createNamespacedLease({ namespace: 'ns', body: { metadata: { name: 'x' } } });
    await api.replaceNamespacedLease({ namespace: 'ns', name: 'x', body: { metadata: { name: 'x' } } });
    await api.patchNamespacedLease(
      { namespace: 'ns', name: 'x', body: {} },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(seen.map((s) => [s.method, new URL(s.url, 'http://x').searchParams.get('fieldManager')])).toEqual([
      ['GET', null],
      ['POST', 'palisade-leader-e7'],
      ['PUT', 'palisade-leader-e7'],
      ['PATCH', 'palisade-leader-e7'],
    ]);
    // a client that asked for its own fieldManager still writes as the leader
    seen.length = 0;
    await api.createNamespacedLease({
      namespace: 'ns',
      body: { metadata: { name: 'x' } },
      fieldManager: 'me',
    });
    expect(new URL(seen[0].url, 'http://x').searchParams.getAll('fieldManager')).toEqual([
      'palisade-leader-e7',
    ]);
    epoch = undefined;
  });

  it('send no write at all while not leading', async () => {
    const api = leaderClient(kc, k8s.CoordinationV1Api, () => undefined);
    seen.length = 0;
    await expect(
      api.createNamespacedLease({ namespace: 'ns', body: { metadata: { name: 'x' } } }),
    ).rejects.toBeInstanceOf(NotLeading);
    await expect(api.deleteNamespacedLease({ namespace: 'ns', name: 'x' })).rejects.toBeInstanceOf(
      NotLeading,
    );
    expect(seen).toEqual([]);
    await api.readNamespacedLease({ namespace: 'ns', name: 'x' });
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });
});
