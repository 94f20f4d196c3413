// What the scheduler knows about nodes between informer events: the requests of the pods
// on each node (including pods it has just assumed onto one), and each node's view for
// the filters, parsed once per node version.
import type * as k8s from '@kubernetes/client-node';
import {
  milliValue,
  type NodeView,
  podRequests,
  type Resources,
  wholeValue,
} from '../../lib/kube/scheduling.js';
import { isTerminal, nodeReady, podKey } from './runtime/conventions.js';

/** the kubelet's default maxPods, for nodes that do not report allocatable pods */
const DEFAULT_MAX_PODS = 110;

export const countsOnNode = (p: k8s.V1Pod) => !!p.spec?.nodeName && !isTerminal(p);

type Usage = Resources & { pods: number };

/**
 * What non-terminal pods request per node. A pod the scheduler decided to bind counts on
 * its node at once ("assumed"), before the binding is written and before the informer
 * shows it, so that the next decision does not overcommit the node.
 */
export class NodeUsage {
  private readonly byPod = new Map<string, { node: string; r: Resources }>();
  private readonly byNode = new Map<string, Usage>();
  private readonly assumed = new Map<string, string>();

  observe(p: k8s.V1Pod) {
    const key = podKey(p);
    if (p.spec?.nodeName) this.assumed.delete(key);
    const node = countsOnNode(p) ? p.spec!.nodeName : this.assumed.get(key);
    this.set(key, node, podRequests(p.spec));
  }

  assume(p: k8s.V1Pod, node: string) {
    this.assumed.set(podKey(p), node);
    this.set(podKey(p), node, podRequests(p.spec));
  }

  /** The binding failed: take back an assumption the informer has not confirmed. */
  unassume(key: string) {
    if (this.assumed.delete(key)) this.set(key, undefined, { milliCpu: 0, memory: 0 });
  }

  forget(key: string) {
    this.assumed.delete(key);
    this.set(key, undefined, { milliCpu: 0, memory: 0 });
  }

  of(node: string): Usage {
    return this.byNode.get(node) ?? { milliCpu: 0, memory: 0, pods: 0 };
  }

  private set(key: string, node: string | undefined, r: Resources) {
    const prev = this.byPod.get(key);
    if (prev) this.add(prev.node, prev.r, -1);
    if (node) this.byPod.set(key, { node, r });
    else this.byPod.delete(key);
    if (node) this.add(node, r, 1);
  }

  private add(node: string, r: Resources, sign: 1 | -1) {
    const u = this.of(node);
    const next = {
      milliCpu: u.milliCpu + sign * r.milliCpu,
      memory: u.memory + sign * r.memory,
      pods: u.pods + sign,
    };
    if (next.pods === 0) this.byNode.delete(node);
    else this.byNode.set(node, next);
  }
}

/** What about a node can change a scheduling decision (not its heartbeats). */
export function nodeFingerprint(n: k8s.V1Node): string {
  const taints = (n.spec?.taints ?? []).map((t) => [t.key, t.value, t.effect]);
  return JSON.stringify([
    n.metadata?.labels,
    taints,
    n.spec?.unschedulable,
    n.status?.allocatable,
    nodeReady(n),
  ]);
}

// the informer replaces a node object on every change, so the object identifies the version
const parsed = new WeakMap<k8s.V1Node, Omit<NodeView, 'requested'>>();

export function nodeView(n: k8s.V1Node, requested: Usage): NodeView {
  let view = parsed.get(n);
  if (!view) {
    const a = n.status?.allocatable ?? {};
    view = {
      name: n.metadata!.name!,
      labels: n.metadata?.labels ?? {},
      taints: n.spec?.taints ?? [],
      unschedulable: !!n.spec?.unschedulable,
      ready: nodeReady(n),
      allocatable: {
        milliCpu: a.cpu === undefined ? undefined : milliValue(a.cpu),
        memory: a.memory === undefined ? undefined : wholeValue(a.memory),
        pods: a.pods === undefined ? DEFAULT_MAX_PODS : wholeValue(a.pods),
      },
    };
    parsed.set(n, view);
  }
  return { ...view, requested };
}
