// Which ValidatingWebhookConfiguration webhooks apply to a request: rules
// (operations, groups, versions, resources incl. subresources, scope),
// namespaceSelector and objectSelector, as the real admission dispatcher decides.
import { type LabelSelector, labelSelectorMatches } from '../../../lib/kube/labelSelector.js';
import type { KubeObject, ResourceInfo } from '../resources/types.js';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  resource: ResourceInfo;
  subresource: string;
  /** kind of the object sent, e.g. policy/v1 Eviction for pods/eviction */
  kind: { group: string; version: string; kind: string };
  namespace?: string;
  name?: string;
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  options?: Record<string, unknown>;
  dryRun: boolean;
  user: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> };
}

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

/** request.options: the operation's options with their kind, as webhooks and CEL see them */
export function reviewOptions(a: AdmissionAttributes): Record<string, unknown> {
  const kind =
    a.operation === 'DELETE' ? 'DeleteOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'CreateOptions';
  return { ...(a.options ?? {}), kind, apiVersion: 'meta.k8s.io/v1' };
}

const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);

function resourceMatches(patterns: string[] | undefined, resource: string, sub: string): boolean {
  return (patterns ?? []).some((p) => {
    const [pr, ps] = p.split('/', 2);
    if (ps === undefined) return sub === '' && (pr === '*' || pr === resource);
    return (pr === '*' || pr === resource) && (ps === '*' || ps === sub);
  });
}

export function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes): boolean {
  if (!has(rule.operations, a.operation)) return false;
  if (!has(rule.apiGroups, a.resource.group)) return false;
  if (!has(rule.apiVersions, a.resource.version)) return false;
  if (!resourceMatches(rule.resources, a.resource.plural, a.subresource)) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && a.resource.namespaced) return false;
  if (scope === 'Namespaced' && !a.resource.namespaced) return false;
  return true;
}

function labelsOf(o: KubeObject | null | undefined) {
  return o?.metadata?.labels ?? {};
}

export function selectorsMatch(
  webhook: { namespaceSelector?: LabelSelector; objectSelector?: LabelSelector },
  a: AdmissionAttributes,
  namespaceLabels: Record<string, string> | undefined,
): boolean {
  const objSel = webhook.objectSelector ?? {};
  // an absent object (oldObject on CREATE, object on DELETE) never matches a non-empty selector
  const matchObj = (o: KubeObject | null | undefined) =>
    !!o && labelSelectorMatches(objSel, labelsOf(o), { nilMatches: true });
  const emptySel =
    Object.keys(objSel.matchLabels ?? {}).length === 0 && !(objSel.matchExpressions ?? []).length;
  if (!emptySel && !matchObj(a.object) && !matchObj(a.oldObject)) return false;
  const nsSel = webhook.namespaceSelector ?? {};
  const isNamespace = a.resource.group === '' && a.resource.plural === 'namespaces';
  if (isNamespace)
    return labelSelectorMatches(nsSel, labelsOf(a.object ?? a.oldObject), { nilMatches: true });
  if (!a.resource.namespaced) return true;
  return labelSelectorMatches(nsSel, namespaceLabels ?? {}, { nilMatches: true });
}
