// Node selector terms as PersistentVolume node affinity and StorageClass allowed
// topologies use them: which nodes can reach a volume. Pure.
import type * as k8s from '@kubernetes/client-node';

export type Labels = Record<string, string>;

/** The parts of a Node that topology decisions need. */
export interface NodeInfo {
  name: string;
  labels: Labels;
}

export function nodeInfo(node: k8s.V1Node): NodeInfo {
  return { name: node.metadata?.name ?? '', labels: node.metadata?.labels ?? {} };
}

function integer(s: string | undefined): number | undefined {
  return s !== undefined && /^-?\d+$/.test(s) ? Number(s) : undefined;
}

/** v1.NodeSelectorRequirement against a label set (NotIn and DoesNotExist match a missing label). */
export function requirementMatches(r: k8s.V1NodeSelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return has && values.includes(v);
    case 'NotIn':
      return !has || !values.includes(v);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const [a, b] = [integer(v), integer(values[0])];
      if (a === undefined || b === undefined || values.length !== 1) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** One term: all its requirements hold. An empty term matches no node, as in Kubernetes. */
export function nodeSelectorTermMatches(term: k8s.V1NodeSelectorTerm, node: NodeInfo): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const fieldLabels = { 'metadata.name': node.name };
  return (
    exprs.every((r) => requirementMatches(r, node.labels)) &&
    fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, fieldLabels))
  );
}

/** Whether a PV's spec.nodeAffinity admits the node (terms are ORed; no affinity admits all). */
export function volumeReachableFrom(pv: k8s.V1PersistentVolume, node: NodeInfo): boolean {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms) return true;
  return terms.some((t) => nodeSelectorTermMatches(t, node));
}

/** A StorageClass allowedTopologies term: every label key has one of the listed values. */
export function topologyTermMatches(term: k8s.V1TopologySelectorTerm, labels: Labels): boolean {
  const exprs = term.matchLabelExpressions ?? [];
  return (
    exprs.length > 0 && exprs.every((e) => Object.hasOwn(labels, e.key) && e.values.includes(labels[e.key]))
  );
}

export function topologyToNodeSelectorTerm(term: k8s.V1TopologySelectorTerm): k8s.V1NodeSelectorTerm {
  return {
    matchExpressions: (term.matchLabelExpressions ?? []).map((e) => ({
      key: e.key,
      operator: 'In',
      values: [...e.values],
    })),
  };
}

/** "zone=a,rack=r1": the labels a set of topology terms looks at, for messages. */
export function describeTopology(terms: k8s.V1TopologySelectorTerm[], labels: Labels): string {
  const keys = [...new Set(terms.flatMap((t) => (t.matchLabelExpressions ?? []).map((e) => e.key)))];
  return keys.map((k) => `${k}=${labels[k] ?? ''}`).join(',');
}
