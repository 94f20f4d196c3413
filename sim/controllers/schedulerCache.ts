// What the scheduler knows about nodes between informer events: the requests of the pods
// on each node (including pods it has just assumed onto one), and each node's view for
// the filters, parsed once per node version.
import type * as k8s from '@kubernetes/client-node';
import { milliValue, podRequests, type Resources, wholeValue } from '../../lib/kube/resources.js';
import type { NodeView } from '../rules/kube/scheduling.js';
import { isTerminal, nodeReady, podKey } from './runtime/conventions.js';

/** the kubelet's default maxPods, for nodes that do not report allocatable pods */
const DEFAULT_MAX_PODS = 110;

export const countsOnNode = (p: k8s.V1Pod) => !!p.spec?.nodeName && !isTerminal(p);

type Usage = Resources & { pods: number };

/**
 * What non-terminal pods request per node. A pod the scheduler decided to bind counts on
 * its node at once ("assumed"), before the binding is written and before the informer
 * shows it, so that the next decision does not overcommit the node. Each node's usage is
 * one object, updated in place, that the node's view refers to.
 */
export class NodeUsage {
  private readonly byPod = new Map<string, { node: string; r: Resources }>();
  private readonly byNode = new Map<string, Usage>();
  private readonly assumed = new Map<string, string>();

  observe(p: k8s.V1Pod) {
    const key = podKey(p);
    if (p.spec?.nodeName) this.assumed.delete(key);
    const node = countsOnNode(p) ? p.spec!.nodeName : this.assumed.get(key);
    const prev = this.byPod.get(key);
    // status updates (most pod events) change neither the node nor the requests
    if (prev && prev.node === node) return;
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

  /** The node's usage: the same object for as long as the scheduler runs. */
  of(node: string): Usage {
    let u = this.byNode.get(node);
    if (!u) this.byNode.set(node, (u = { milliCpu: 0, memory: 0, pods: 0 }));
    return u;
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
    u.milliCpu += sign * r.milliCpu;
    u.memory += sign * r.memory;
    u.pods += sign;
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

export function nodeView(n: k8s.V1Node, requested: Usage): NodeView {
  const a = n.status?.allocatable ?? {};
  return {
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
    requested,
  };
}

/**
 * Every node's view, kept up to date from node events (parsed once per change that
 * matters, not once per pod), in a stable order for the round-robin search.
 */
export class NodeViews {
  private readonly views = new Map<string, { view: NodeView; fingerprint: string }>();
  private ordered: NodeView[] | undefined;

  constructor(private readonly usage: NodeUsage) {}

  /** Returns whether the change may let a waiting pod fit. */
  upsert(n: k8s.V1Node): boolean {
    const name = n.metadata!.name!;
    const fingerprint = nodeFingerprint(n);
    const prev = this.views.get(name);
    if (prev?.fingerprint === fingerprint) return false;
    const view = nodeView(n, this.usage.of(name));
    this.views.set(name, { view, fingerprint });
    if (prev) this.ordered?.splice(this.ordered.indexOf(prev.view), 1, view);
    else this.ordered = undefined;
    return true;
  }

  remove(name: string) {
    if (this.views.delete(name)) this.ordered = undefined;
  }

  get size(): number {
    return this.views.size;
  }

  list(): NodeView[] {
    this.ordered ??= [...this.views.values()].map((v) => v.view);
    return this.ordered;
  }
}
