// A list of many pages is projected page by page: the list's full objects are not kept until it
// ends (at 150 000 pods they took about a GiB), yet the projections still see the list whole and
// at once, never half of it. The list function here stands in for the API server; the watch that
// follows the list fails at once (nothing listens) and the informer is stopped.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { SupervisedInformer } from './informer.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const PAGES = 4;
const PER_PAGE = 50;

type Pod = k8s.V1Pod & { payload?: number[] };
const pod = (page: number, i: number): Pod => ({
  metadata: { namespace: 'ns', name: `p${page}-${i}`, resourceVersion: `${page * PER_PAGE + i + 1}` },
  // what the view leaves behind (a full pod is mostly spec and status)
  payload: new Array(1000).fill(page),
});

let informer: SupervisedInformer<Pod, string> | undefined;
afterEach(() => informer?.stop());

function kubeconfig() {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

describe('a relist of many pages', () => {
  it('drops each page once projected, and applies the list at once', async () => {
    const handed: WeakRef<Pod>[] = [];
    const added: string[] = [];
    let collectedBeforeLast = 0;
    let addedBeforeLast = -1;
    informer = new SupervisedInformer<Pod, string>(
      kubeconfig(),
      {
        kind: 'pods',
        path: '/api/v1/pods',
        list: async ({ _continue }) => {
          // a page comes in a task of its own, as from the network (WeakRefs hold their object
          // until the task that made them ends)
          await new Promise((r) => setTimeout(r, 10));
          const page = Number(_continue ?? 0);
          if (page === PAGES - 1) {
            // the pages before this one were projected: their objects are garbage now
            gc();
            collectedBeforeLast = handed.filter((r) => r.deref() === undefined).length;
            addedBeforeLast = added.length;
          }
          const items = Array.from({ length: PER_PAGE }, (_, i) => pod(page, i));
          for (const o of items) handed.push(new WeakRef(o));
          return {
            items,
            metadata: { resourceVersion: '1000', _continue: page < PAGES - 1 ? String(page + 1) : undefined },
          };
        },
        project: (o) => o.metadata!.name!,
      },
      { maxBackoffMs: 60_000 },
    );
    informer.on({ add: (v) => added.push(v) });
    informer.start();
    await informer.synced();
    // no projection heard of the list before its last page came
    expect(addedBeforeLast).toBe(0);
    expect(added).toHaveLength(PAGES * PER_PAGE);
    expect(informer.size).toBe(PAGES * PER_PAGE);
    // every object of the pages before the last could be collected while the list went on
    expect(collectedBeforeLast).toBe((PAGES - 1) * PER_PAGE);
  });
});
