// A term's clients stamp its epoch on every write and send nothing once the term has ended.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingApi, type RecordingApi } from '../test/recordingApi.js';
import { isNotLeader, Term } from './gate.js';

let fake: RecordingApi;
let kc: k8s.KubeConfig;
/** what each request asked: its method and its path with the query */
const seenRequests = () => fake.seen.map((r) => ({ method: r.method ?? '', url: r.url ?? '' }));

beforeAll(async () => {
  fake = await startRecordingApi((req) =>
    // the generic client asks discovery first
    req.url === '/apis/coordination.k8s.io/v1'
      ? {
          kind: 'APIResourceList',
          groupVersion: 'coordination.k8s.io/v1',
          resources: [{ name: 'leases', kind: 'Lease', namespaced: true, singularName: 'lease', verbs: [] }],
        }
      : { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: 'x' } },
  );
  kc = fake.kc;
});
afterAll(() => fake.close());

describe("a term's clients", () => {
  it('stamp the epoch on creates, updates and patches, not on reads', async () => {
    const term = new Term(7, 'ns/x', async () => true);
    const api = term.kc(kc).makeApiClient(k8s.CoordinationV1Api);
    fake.seen.length = 0;
    await api.readNamespacedLease({ namespace: 'ns', name: 'x' });
    await api.createNamespacedLease({ namespace: 'ns', body: { metadata: { name: 'x' } } });
    await api.replaceNamespacedLease({ namespace: 'ns', name: 'x', body: { metadata: { name: 'x' } } });
    await api.patchNamespacedLease(
      { namespace: 'ns', name: 'x', body: {} },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(
      seenRequests().map((s) => [s.method, new URL(s.url, 'http://x').searchParams.get('fieldManager')]),
    ).toEqual([
      ['GET', null],
      ['POST', 'palisade-leader-e7'],
      ['PUT', 'palisade-leader-e7'],
      ['PATCH', 'palisade-leader-e7'],
    ]);
    // a client that asked for its own fieldManager still writes as the leader
    fake.seen.length = 0;
    await api.createNamespacedLease({
      namespace: 'ns',
      body: { metadata: { name: 'x' } },
      fieldManager: 'me',
    });
    expect(new URL(seenRequests()[0].url, 'http://x').searchParams.getAll('fieldManager')).toEqual([
      'palisade-leader-e7',
    ]);
    // the generic object client too (the generator's creates and deletes)
    fake.seen.length = 0;
    await k8s.KubernetesObjectApi.makeApiClient(term.kc(kc)).create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'x', namespace: 'ns' },
    });
    expect(
      seenRequests().map((s) => [s.method, new URL(s.url, 'http://x').searchParams.getAll('fieldManager')]),
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
    fake.seen.length = 0;
    const refused = async (p: Promise<unknown>) => expect(isNotLeader(await p.catch((e) => e))).toBe(true);
    await refused(api.createNamespacedLease({ namespace: 'ns', body: { metadata: { name: 'x' } } }));
    await refused(api.deleteNamespacedLease({ namespace: 'ns', name: 'x' }));
    await refused(api.readNamespacedLease({ namespace: 'ns', name: 'x' }));
    expect(seenRequests()).toEqual([]);
  });
});
