// The taint manager with an API that answers one deletion slowly (a pod deletion waits on
// the admission webhook; on a loaded machine that took seconds in the randomized fault run,
// issue 23): the other pods of a tainted node are evicted at their deadline all the same, as
// kube-controller-manager fires each eviction in a goroutine of its own. Evicted one after
// the other, the last ones of seeds 2 and 16 went 10-16 s late, after their node was back.
import type * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { TAINT_UNREACHABLE } from '../rules/kube/nodeHealth.js';
import type { ControllerContext } from './runtime/context.js';
import { TaintEvictionController } from './taintEviction.js';

type Obj = k8s.KubernetesObject;
type Handlers<T> = { add?: (o: T) => void; update?: (o: T, old: T) => void; delete?: (o: T) => void };

class FakeInformer<T extends Obj> {
  private readonly items = new Map<string, T>();
  private readonly handlers: Handlers<T>[] = [];
  on(h: Handlers<T>) {
    this.handlers.push(h);
  }
  put(o: T) {
    const k = (o.metadata?.namespace ? `${o.metadata.namespace}/` : '') + o.metadata!.name!;
    this.items.set(k, o);
    for (const h of this.handlers) h.add?.(o);
  }
  get(name: string, namespace?: string) {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }
  list() {
    return [...this.items.values()];
  }
}

let controller: TaintEvictionController | undefined;
afterEach(() => controller?.stop());

describe('taint eviction with a slow deletion', () => {
  it('evicts the other pods of the node while one deletion is still waiting', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const deleted: string[] = [];
    const core = {
      patchNamespacedPodStatus: async ({ name }: { name: string }) => ({ metadata: { name } }),
      deleteNamespacedPod: async ({ name }: { name: string }) => {
        deleted.push(name);
        if (name === 'slow') await held;
        return {};
      },
    };
    const informers = { pods: new FakeInformer<k8s.V1Pod>(), nodes: new FakeInformer<k8s.V1Node>() };
    const ctx = {
      clients: { core },
      informers,
      events: { record: async () => undefined },
      log: () => undefined,
    } as unknown as ControllerContext;
    controller = new TaintEvictionController();
    controller.register(ctx);
    // the toleration ran out long ago: every pod of the node is due now
    informers.nodes.put({
      metadata: { name: 'n1' },
      spec: {
        taints: [
          { key: TAINT_UNREACHABLE, effect: 'NoExecute', timeAdded: new Date(Date.now() - 60_000) as never },
        ],
      },
    });
    for (const name of ['slow', 'a', 'b'])
      informers.pods.put({
        metadata: { name, namespace: 'ns', uid: name, resourceVersion: '1' },
        spec: {
          nodeName: 'n1',
          containers: [],
          tolerations: [
            { key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 },
          ],
        },
      });
    controller.start();
    const until = Date.now() + 3000;
    while (deleted.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(deleted.sort()).toEqual(['a', 'b', 'slow']);
    release();
  });
});
