// Node selector terms as PersistentVolume node affinity and StorageClass allowed
// topologies use them: which nodes can reach a volume. Pure.
import type * as k8s from '@kubernetes/client-node';
import { type Labels, type NodeInfo, nodeSelectorTermMatches } from '../../../lib/kube/nodeSelector.js';

export function nodeInfo(node: k8s.V1Node): NodeInfo {
  return { name: node.metadata?.name ?? '', labels: node.metadata?.labels ?? {} };
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
