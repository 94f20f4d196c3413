// Node selector requirements and terms (v1.NodeSelectorRequirement, v1.NodeSelectorTerm) as
// required node affinity, PersistentVolume node affinity and StorageClass topologies use them:
// which nodes a pod or a volume admits. Shared by the embedded cluster's scheduler and volume
// binder and by the incident view's "where can it start again" (lib/incident/capacity.ts). Pure.

export type Labels = Record<string, string>;

/** The parts of a Node that selector decisions need. */
export interface NodeInfo {
  name: string;
  labels: Labels;
}

/** v1.NodeSelectorRequirement, structurally (client-node's type fits it). */
export interface SelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** v1.NodeSelectorTerm, structurally. */
export interface SelectorTerm {
  matchExpressions?: SelectorRequirement[];
  matchFields?: SelectorRequirement[];
}

function integer(s: string | undefined): number | undefined {
  return s !== undefined && /^-?\d+$/.test(s) ? Number(s) : undefined;
}

/** v1.NodeSelectorRequirement against a label set (NotIn and DoesNotExist match a missing label). */
export function requirementMatches(r: SelectorRequirement, labels: Labels): boolean {
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
export function nodeSelectorTermMatches(term: SelectorTerm, node: NodeInfo): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const fieldLabels = { 'metadata.name': node.name };
  return (
    exprs.every((r) => requirementMatches(r, node.labels)) &&
    fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, fieldLabels))
  );
}
