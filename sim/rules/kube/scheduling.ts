// kube-scheduler's decisions for one pod, reduced to the default filter plugins the
// embedded cluster needs (NodeUnschedulable, TaintToleration, NodeAffinity,
// NodeResourcesFit, VolumeBinding) and a spreading score. Reasons and the FitError
// message use kube-scheduler's wording. Pure: no I/O.
import { type LabelOperator, matchesRequirements } from '../../../lib/kube/labelSelector.js';
import type { Resources } from '../../../lib/kube/resources.js';
import { formatTaint, type Taint, type Toleration, untoleratedTaint } from '../../../lib/kube/tolerations.js';

// ---------------------------------------------------------------------------
// Node selectors and topology terms

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}
export interface NodeSelector {
  nodeSelectorTerms?: NodeSelectorTerm[];
}
export interface TopologySelectorTerm {
  matchLabelExpressions?: { key: string; values?: string[] }[];
}

const NODE_OPERATORS: Record<string, LabelOperator> = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
  Gt: 'GreaterThan',
  Lt: 'LessThan',
};

function expressionsMatch(exprs: NodeSelectorRequirement[], labels: Record<string, string>): boolean {
  const reqs = exprs.map((e) => ({
    key: e.key,
    operator: NODE_OPERATORS[e.operator],
    values: e.values ?? [],
  }));
  // an unknown operator makes the term invalid, and invalid terms match nothing
  return reqs.every((r) => r.operator) && matchesRequirements(reqs, labels);
}

// only metadata.name is a supported node field
function fieldsMatch(fields: NodeSelectorRequirement[], nodeName: string): boolean {
  return fields.every((f) => {
    if (f.key !== 'metadata.name') return false;
    if (f.operator === 'In') return (f.values ?? []).includes(nodeName);
    if (f.operator === 'NotIn') return !(f.values ?? []).includes(nodeName);
    return false;
  });
}

/** Terms are ORed; a term ANDs its requirements; an empty term matches nothing. */
export function nodeSelectorMatches(
  sel: NodeSelector | undefined,
  labels: Record<string, string>,
  nodeName: string,
): boolean {
  return (sel?.nodeSelectorTerms ?? []).some((term) => {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return expressionsMatch(exprs, labels) && fieldsMatch(fields, nodeName);
  });
}

/** StorageClass allowedTopologies: no terms allow every node; an empty term allows none. */
export function topologyTermsMatch(
  terms: TopologySelectorTerm[] | undefined,
  labels: Record<string, string>,
) {
  if (!terms || terms.length === 0) return true;
  return terms.some((t) => {
    const exprs = t.matchLabelExpressions ?? [];
    return (
      exprs.length > 0 &&
      exprs.every((e) => Object.hasOwn(labels, e.key) && (e.values ?? []).includes(labels[e.key]))
    );
  });
}

// ---------------------------------------------------------------------------
// Filtering

export interface NodeView {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  ready: string;
  /** undefined cpu/memory: the node does not report it, so it does not limit */
  allocatable: { milliCpu?: number; memory?: number; pods: number };
  /** what non-terminal pods already bound to the node request */
  requested: Resources & { pods: number };
}

export type VolumeConstraint =
  /** a bound claim: its PV's required node affinity, if any */
  | { kind: 'bound'; required?: NodeSelector }
  /** a claim bound to a PV that does not exist */
  | { kind: 'missingPv' }
  /** an unbound WaitForFirstConsumer claim: the class's allowed topologies */
  | { kind: 'provision'; allowedTopologies?: TopologySelectorTerm[] };

export interface PodDemand {
  requests: Resources;
  nodeSelector?: Record<string, string>;
  requiredAffinity?: NodeSelector;
  tolerations?: Toleration[];
  volumes: VolumeConstraint[];
}

export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const REASON_TOO_MANY_PODS = 'Too many pods';
export const REASON_VOLUME_AFFINITY = 'node(s) had volume node affinity conflict';
export const REASON_NO_VOLUME_TO_BIND = "node(s) didn't find available persistent volumes to bind";
export const REASON_PV_MISSING = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/**
 * Taints as the scheduler should see them. The node lifecycle controller taints a node
 * that is not Ready (TaintNodesByCondition); until it has, the readiness is applied as if
 * it had, so a fresh NotReady node is not picked in the meantime.
 */
export function effectiveTaints(node: Pick<NodeView, 'taints' | 'ready'>): Taint[] {
  if (node.ready === 'True') return node.taints;
  // views do not change once made: one array per view, not one per pod that looks at it
  let taints = effective.get(node);
  if (!taints) effective.set(node, (taints = withReadinessTaint(node)));
  return taints;
}

const effective = new WeakMap<object, Taint[]>();
/** the reason per taint object, built once: a failing pod looks at thousands of nodes */
const taintReasons = new WeakMap<Taint, string[]>();

function taintReason(taint: Taint): string[] {
  let r = taintReasons.get(taint);
  if (!r) taintReasons.set(taint, (r = [`node(s) had untolerated taint ${formatTaint(taint)}`]));
  return r;
}

function withReadinessTaint(node: Pick<NodeView, 'taints' | 'ready'>): Taint[] {
  const key = node.ready === 'False' ? 'node.kubernetes.io/not-ready' : 'node.kubernetes.io/unreachable';
  const has = node.taints.some(
    (t) =>
      t.effect === 'NoSchedule' &&
      ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'].includes(t.key),
  );
  return has ? node.taints : [...node.taints, { key, effect: 'NoSchedule' }];
}

function affinityMatches(pod: PodDemand, node: NodeView): boolean {
  const selector = Object.entries(pod.nodeSelector ?? {});
  if (!selector.every(([k, v]) => node.labels[k] === v)) return false;
  return !pod.requiredAffinity?.nodeSelectorTerms?.length
    ? true
    : nodeSelectorMatches(pod.requiredAffinity, node.labels, node.name);
}

function resourceReasons(pod: PodDemand, node: NodeView): string[] {
  const reasons: string[] = [];
  if (node.requested.pods + 1 > node.allocatable.pods) reasons.push(REASON_TOO_MANY_PODS);
  const { milliCpu, memory } = node.allocatable;
  if (
    pod.requests.milliCpu > 0 &&
    milliCpu !== undefined &&
    pod.requests.milliCpu > milliCpu - node.requested.milliCpu
  )
    reasons.push('Insufficient cpu');
  if (pod.requests.memory > 0 && memory !== undefined && pod.requests.memory > memory - node.requested.memory)
    reasons.push('Insufficient memory');
  return reasons;
}

function volumeReasons(pod: PodDemand, node: NodeView): string[] {
  const reasons = new Set<string>();
  for (const v of pod.volumes) {
    if (v.kind === 'missingPv') reasons.add(REASON_PV_MISSING);
    else if (v.kind === 'bound' && v.required && !nodeSelectorMatches(v.required, node.labels, node.name))
      reasons.add(REASON_VOLUME_AFFINITY);
    else if (v.kind === 'provision' && !topologyTermsMatch(v.allowedTopologies, node.labels))
      reasons.add(REASON_NO_VOLUME_TO_BIND);
  }
  return [...reasons];
}

/**
 * Why `pod` cannot run on `node` (empty: it can), checked in the default plugin order and
 * stopping at the first plugin that fails, as the scheduling framework does. The array
 * returned may be shared: do not modify it.
 */
export function unfitReasons(pod: PodDemand, node: NodeView): string[] {
  const cordonTaint = { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' };
  if (node.unschedulable && untoleratedTaint([cordonTaint], pod.tolerations)) return [REASON_UNSCHEDULABLE];
  const taint = untoleratedTaint(effectiveTaints(node), pod.tolerations);
  if (taint) return taintReason(taint);
  if (!affinityMatches(pod, node)) return [REASON_AFFINITY];
  const resources = resourceReasons(pod, node);
  if (resources.length) return resources;
  return volumeReasons(pod, node);
}

/**
 * FitError.Error(): "0/3 nodes are available: 1 node(s) had untolerated taint {k: v},
 * 2 Insufficient cpu." (histogram entries sorted as strings, as Go's sort.Strings does).
 * `preFilter` replaces the histogram when a pre-filter check failed for the whole pod.
 * Without nodes at all, ErrNoNodesAvailable.
 */
export function fitErrorMessage(nodeCount: number, reasonsPerNode: string[][], preFilter?: string): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  let msg = `0/${nodeCount} nodes are available:`;
  if (preFilter) return `${msg} ${preFilter}.`;
  const histogram = new Map<string, number>();
  for (const reasons of reasonsPerNode)
    for (const r of reasons) histogram.set(r, (histogram.get(r) ?? 0) + 1);
  const entries = [...histogram].map(([r, n]) => `${n} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length) msg += ` ${entries.join(', ')}.`;
  return msg;
}

/**
 * numFeasibleNodesToFind: small clusters are searched whole; large ones only until this
 * many feasible nodes are found (adaptive percentageOfNodesToScore, at least 100 nodes).
 */
export function feasibleNodesToFind(nodeCount: number): number {
  if (nodeCount < 100) return nodeCount;
  const percentage = Math.max(5, 50 - Math.floor(nodeCount / 125));
  return Math.max(100, Math.floor((nodeCount * percentage) / 100));
}

/** Spread: the preferred node if it fits, else the feasible node with the fewest pods (then by name). */
export function chooseNode(feasible: NodeView[], preferred?: string): NodeView | undefined {
  const pick = preferred ? feasible.find((n) => n.name === preferred) : undefined;
  if (pick) return pick;
  // one pass, not a sort: this runs for every pod over hundreds of feasible nodes
  let best: NodeView | undefined;
  for (const n of feasible) {
    const d = best ? n.requested.pods - best.requested.pods : -1;
    if (d < 0 || (d === 0 && n.name < best!.name)) best = n;
  }
  return best;
}
