// Least privilege for instance IDs (issue 23, 5): Palisade patches a workload's map only when the
// workload opted in (labelled palisade.dev/instance-ids-enabled=true) AND its namespace is one
// palisade.yaml lists in instanceIds.namespaces (["*"]: every namespace) — where the chart grants
// get/patch on deployments, statefulsets and jobs. A person may grant narrower rights (a Role with
// resourceNames); what the API server then forbids is passed on naming the grant that is missing.
// Pure.
import { INSTANCE_IDS_LABEL, type WorkloadRef } from './types.js';

export type ScopeDecision = { ok: true } | { ok: false; message: string };

export function namespaceEnabled(namespaces: readonly string[], namespace: string): boolean {
  return namespaces.includes('*') || namespaces.includes(namespace);
}

const listed = (namespaces: readonly string[]) =>
  namespaces.length ? `[${namespaces.join(', ')}]` : 'empty: instance IDs are off';

/** May Palisade touch instance IDs in this namespace at all? */
export function judgeNamespace(namespaces: readonly string[], namespace: string): ScopeDecision {
  if (namespaceEnabled(namespaces, namespace)) return { ok: true };
  return {
    ok: false,
    message: `namespace ${namespace} is not in palisade.yaml instanceIds.namespaces (${listed(namespaces)}): Palisade gives no instance IDs there and patches no workload there. Add it (the chart's value instanceIds.namespaces, which also grants Palisade get and patch on deployments, statefulsets and jobs in it)`,
  };
}

/** Has the workload opted in? */
export function judgeOptIn(w: WorkloadRef, labels: Record<string, string> | undefined): ScopeDecision {
  if (labels?.[INSTANCE_IDS_LABEL] === 'true') return { ok: true };
  return {
    ok: false,
    message: `${w.kind} ${w.namespace}/${w.name} has not opted in to instance IDs: Palisade patches only workloads labelled ${INSTANCE_IDS_LABEL}=true (kubectl label ${w.kind.toLowerCase()}/${w.name} -n ${w.namespace} ${INSTANCE_IDS_LABEL}=true)`,
  };
}

const RESOURCE: Record<WorkloadRef['kind'], string> = {
  Deployment: 'deployments.apps',
  StatefulSet: 'statefulsets.apps',
  Job: 'jobs.batch',
};

/**
 * The API server forbade Palisade something it needs for instance IDs: which grant is missing.
 * `verbs` and `resource` are what the request needed ("get, patch" on "deployments.apps").
 */
export function missingGrantMessage(
  what: { verbs: string; resource: string; namespace?: string; name?: string },
  apiSays: string,
): string {
  const where = what.namespace ? ` in namespace ${what.namespace}` : ' (cluster-wide)';
  const one = what.name ? ` (or a Role with resourceNames: [${what.name}])` : '';
  return `the API server forbade it (${apiSays}): grant Palisade's identity ${what.verbs} on ${what.resource}${where}${one}`;
}

export const workloadResource = (w: WorkloadRef) => RESOURCE[w.kind];
