import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { FencingApi } from './api.js';
import { Release } from './release.js';

/** A node and its pods, as the fake API server holds them. */
function fakeApi() {
  const node: k8s.V1Node = { metadata: { name: 'a1-1', resourceVersion: '1' }, spec: {} };
  let pods: k8s.V1Pod[] = [
    {
      metadata: { name: 'db-0', namespace: 'shop', uid: 'u1', resourceVersion: '5' },
      spec: { nodeName: 'a1-1', containers: [] },
      status: { phase: 'Running' },
    },
  ];
  const api = {
    core: {
      listPodForAllNamespaces: async () => ({ items: pods }),
      readNode: async () => structuredClone(node),
      replaceNode: async ({ body }: { body: k8s.V1Node }) => {
        node.spec = body.spec;
      },
      deleteNamespacedPod: async ({ name }: { name: string }) => {
        pods = pods.filter((p) => p.metadata?.name !== name);
      },
    },
    storage: { listVolumeAttachment: async () => ({ items: [] }) },
  };
  return {
    api: api as unknown as FencingApi,
    /** the pod GC deletes the evicted pod once the taint is there, before the next round */
    podGcSweeps: () => {
      pods = [];
    },
  };
}

describe('Release: what the taint released is recorded even when its first record was lost', () => {
  it('a later first round (its status write met a 409) reports the taint round, not "nothing"', async () => {
    const { api, podGcSweeps } = fakeApi();
    const release = new Release(api);
    const first = await release.apply('a1-1', 'OutOfServiceTaint', true);
    expect(first).toMatchObject({ event: 'OutOfServiceTaintAdded', released: { pods: ['shop/db-0'] } });
    // the controller's status write failed: nothing recorded; meanwhile the pod GC took db-0
    podGcSweeps();
    const again = await release.apply('a1-1', 'OutOfServiceTaint', true);
    expect(again).toMatchObject({ event: 'OutOfServiceTaintAdded', released: { pods: ['shop/db-0'] } });
    expect(again.what).toMatch(/it releases pods shop\/db-0/);
    // once a round is recorded (phase Releasing), later rounds say only what they did
    const later = await release.apply('a1-1', 'OutOfServiceTaint', false);
    expect(later.event).toBeUndefined();
    // a node that came back starts afresh
    release.forget('a1-1');
    expect((await release.apply('a1-1', 'OutOfServiceTaint', true)).event).toBeUndefined();
  });
});
