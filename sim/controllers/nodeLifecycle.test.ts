// The node lifecycle controller against an API whose watch is behind (a loaded machine: the
// randomized fault run, issue 23): a node that reports Ready again loses its unreachable
// taints within one pass, as kube-controller-manager's RemoveTaintOffNode makes sure with a
// fresh read on conflict, and one node's slow pod writes never hold up another node. Before
// either fix a Ready node kept its NoExecute taint for 10-23 s in seeds 2 and 16, long
// enough for the taint manager to evict its pods after the node had recovered.
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { TAINT_UNREACHABLE } from '../rules/kube/nodeHealth.js';
import { NodeLifecycleController } from './nodeLifecycle.js';
import type { ControllerContext } from './runtime/context.js';

type Obj = k8s.KubernetesObject;
type Handlers<T> = { add?: (o: T) => void; update?: (o: T, old: T) => void; delete?: (o: T) => void };

/** An informer frozen at what it was given: the watch never catches up during the test. */
class FrozenInformer<T extends Obj> {
  private readonly items = new Map<string, T>();
  private readonly handlers: Handlers<T>[] = [];
  on(h: Handlers<T>) {
    this.handlers.push(h);
  }
  put(o: T) {
    this.items.set(key(o), o);
    for (const h of this.handlers) h.add?.(o);
  }
  get(name: string, namespace?: string) {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }
  list() {
    return [...this.items.values()];
  }
}
const key = (o: Obj) => (o.metadata?.namespace ? `${o.metadata.namespace}/` : '') + o.metadata!.name!;
const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o));
const conflict = () => new k8s.ApiException(409, 'Conflict', { reason: 'Conflict' }, {});

const SECOND = 1000;
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function node(name: string, ready: 'True' | 'Unknown', rv: number, taints: k8s.V1Taint[]): k8s.V1Node {
  const now = Date.now();
  return {
    metadata: { name, resourceVersion: String(rv), creationTimestamp: new Date(now - 3600 * SECOND) },
    spec: { taints },
    status: {
      conditions: ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
        type,
        status: type === 'Ready' || ready === 'Unknown' ? ready : 'False',
        lastHeartbeatTime: stamp(ready === 'True' ? now : now - 60 * SECOND) as unknown as Date,
        lastTransitionTime: stamp(now - 10 * SECOND) as unknown as Date,
      })),
    },
  };
}
const unreachable = (): k8s.V1Taint[] => [
  { key: TAINT_UNREACHABLE, effect: 'NoSchedule', timeAdded: stamp(Date.now() - 8 * SECOND) as never },
  { key: TAINT_UNREACHABLE, effect: 'NoExecute', timeAdded: stamp(Date.now() - 8 * SECOND) as never },
];

/**
 * The API: nodes and pods with resourceVersions, merge patches conditional on them (409 on a
 * stale one); `hold` keeps pod status writes waiting (a slow API server).
 */
function fakeApi() {
  const nodes = new Map<string, k8s.V1Node>();
  let rv = 100;
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const api = {
    nodes,
    holdPodWrites: false,
    release: () => release(),
    podWrites: 0,
    core: {
      readNode: async ({ name }: { name: string }) => {
        const n = nodes.get(name);
        if (!n) throw new k8s.ApiException(404, 'NotFound', {}, {});
        return clone(n);
      },
      patchNode: async ({
        name,
        body,
      }: {
        name: string;
        body: { metadata?: { resourceVersion?: string }; spec?: { taints?: k8s.V1Taint[] } };
      }) => {
        const n = nodes.get(name)!;
        if (body.metadata?.resourceVersion && body.metadata.resourceVersion !== n.metadata!.resourceVersion)
          throw conflict();
        const next = clone(n);
        next.spec = { ...next.spec, taints: body.spec?.taints ?? [] };
        next.metadata!.resourceVersion = String(++rv);
        nodes.set(name, next);
        return clone(next);
      },
      patchNodeStatus: async () => {
        throw new Error('not expected: the test nodes are not silent');
      },
      patchNamespacedPodStatus: async () => {
        api.podWrites++;
        if (api.holdPodWrites) await held;
        throw new k8s.ApiException(404, 'NotFound', {}, {});
      },
    },
    coordination: {
      readNamespacedLease: async () => {
        throw new k8s.ApiException(404, 'NotFound', {}, {});
      },
    },
  };
  return api;
}

function context(api: ReturnType<typeof fakeApi>) {
  const informers = {
    nodes: new FrozenInformer<k8s.V1Node>(),
    pods: new FrozenInformer<k8s.V1Pod>(),
    leases: new FrozenInformer<k8s.V1Lease>(),
  };
  const ctx = {
    clients: { core: api.core, coordination: api.coordination },
    informers,
    // no monitor pass of its own during the test: only the first one and node events
    durations: { nodeMonitorPeriodMs: 3600 * SECOND, nodeMonitorGracePeriodMs: 40 * SECOND },
    events: { record: async () => undefined },
    log: () => undefined,
  } as unknown as ControllerContext;
  return { ctx, informers };
}

const noExecute = (n: k8s.V1Node | undefined) =>
  (n?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute').map((t) => t.key);

async function eventually(check: () => boolean, ms: number) {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return check();
}

let controller: NodeLifecycleController | undefined;
afterEach(() => controller?.stop());

describe('node lifecycle on a watch that is behind', () => {
  it('takes the unreachable taints off a Ready node on a fresh read when its cached copy conflicts', async () => {
    const api = fakeApi();
    const { ctx, informers } = context(api);
    controller = new NodeLifecycleController();
    controller.register(ctx);
    // the kubelet is back: the API has Ready=True (and a status post newer than the cache)
    api.nodes.set('n1', node('n1', 'True', 7, unreachable()));
    informers.nodes.put(node('n1', 'True', 5, unreachable()));
    controller.start();
    // one pass: its retries take at most 5 × 200 ms
    expect(await eventually(() => noExecute(api.nodes.get('n1')).length === 0, 3 * SECOND)).toBe(true);
    expect(api.nodes.get('n1')?.spec?.taints).toEqual([]);
  });

  it('handles a recovered node while another node still waits on its pod writes', async () => {
    const api = fakeApi();
    const { ctx, informers } = context(api);
    controller = new NodeLifecycleController();
    controller.register(ctx);
    api.holdPodWrites = true;
    // a0 went silent (Unknown, already tainted) and has a Ready pod to mark NotReady; the API
    // answers that write slowly. a1 reports Ready again and still carries the taints.
    const silent = node('a0', 'Unknown', 3, unreachable());
    api.nodes.set('a0', silent);
    informers.nodes.put(silent);
    informers.pods.put({
      metadata: { name: 'p', namespace: 'ns', resourceVersion: '4', uid: 'u' },
      spec: { nodeName: 'a0', containers: [] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const back = node('a1', 'True', 6, unreachable());
    api.nodes.set('a1', back);
    informers.nodes.put(back);
    controller.start();
    expect(await eventually(() => api.podWrites > 0, 3 * SECOND)).toBe(true);
    expect(await eventually(() => noExecute(api.nodes.get('a1')).length === 0, 3 * SECOND)).toBe(true);
    api.release();
  });
});
