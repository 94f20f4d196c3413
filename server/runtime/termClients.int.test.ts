// A term's clients stamp its epoch on every write and send nothing once the term has ended.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotLeader, Term } from '../runtime/gate.js';

let server: http.Server;
const seen: { method: string; url: string }[] = [];
let kc: k8s.KubeConfig;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    // the generic client asks discovery first
    const discovery = req.url === '/apis/coordination.k8s.io/v1';
    const body = JSON.stringify(
      discovery
        ? {
            kind: 'APIResourceList',
            groupVersion: 'coordination.k8s.io/v1',
            resources: [
              { name: 'leases', kind: 'Lease', namespaced: true, singularName: 'lease', verbs: [] },
            ],
          }
        : { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: 'x' } },
    );
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

describe("a term's clients", () => {
  it('stamp the epoch on creates, updates and patches, not on reads', async () => {
    const term = new Term(7, 'ns/x', async () => true);
    const api = term.kc(kc).makeApiClient(k8s.CoordinationV1Api);
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
    // the generic object client too (the generator's creates and deletes)
    seen.length = 0;
    await k8s.KubernetesObjectApi.makeApiClient(term.kc(kc)).create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'x', namespace: 'ns' },
    });
    expect(
      seen.map((s) => [s.method, new URL(s.url, 'http://x').searchParams.getAll('fieldManager')]),
    ).toEqual([
      ['GET', []],
      ['POST', ['palisade-leader-e7']],
    ]);
    term.end();
  });

  it('send nothing at all once the term has ended', async () => {
    const term = new Term(3, 'ns/x', async () => true);
    const api = term.kc(kc).makeApiClient(k8s.CoordinationV1Api);
    term.end();
    seen.length = 0;
    const refused = async (p: Promise<unknown>) => expect(isNotLeader(await p.catch((e) => e))).toBe(true);
    await refused(api.createNamespacedLease({ namespace: 'ns', body: { metadata: { name: 'x' } } }));
    await refused(api.deleteNamespacedLease({ namespace: 'ns', name: 'x' }));
    await refused(api.readNamespacedLease({ namespace: 'ns', name: 'x' }));
    expect(seen).toEqual([]);
  });
});
