// The conditions kube-controller-manager's namespace controller writes on a terminating
// namespace, saying why it is not gone yet: what content remains (per group-resource) and
// which finalizers hold it. Pure: from what is left after a deletion pass.

export interface Remaining {
  /** "configmaps." for the core group, "deployments.apps" otherwise, as the real controller prints */
  groupResource: string;
  finalizers: string[];
}

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

function counted(counts: Map<string, number>, what: (key: string, n: number) => string): string {
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => what(k, n))
    .join(', ');
}

export function namespaceConditions(left: Remaining[]): NamespaceCondition[] {
  const byResource = new Map<string, number>();
  const byFinalizer = new Map<string, number>();
  for (const o of left) {
    byResource.set(o.groupResource, (byResource.get(o.groupResource) ?? 0) + 1);
    for (const f of new Set(o.finalizers)) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
  }
  const content: NamespaceCondition = byResource.size
    ? {
        type: 'NamespaceContentRemaining',
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: `Some resources are remaining: ${counted(byResource, (k, n) => `${k} has ${n} resource instances`)}`,
      }
    : {
        type: 'NamespaceContentRemaining',
        status: 'False',
        reason: 'ContentRemoved',
        message: 'All content successfully removed',
      };
  const finalizers: NamespaceCondition = byFinalizer.size
    ? {
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${counted(byFinalizer, (k, n) => `${k} in ${n} resource instances`)}`,
      }
    : {
        type: 'NamespaceFinalizersRemaining',
        status: 'False',
        reason: 'ContentHasNoFinalizers',
        message: 'All content-preserving finalizers finished',
      };
  return [
    {
      type: 'NamespaceDeletionDiscoveryFailure',
      status: 'False',
      reason: 'ResourcesDiscovered',
      message: 'All resources successfully discovered',
    },
    {
      type: 'NamespaceDeletionGroupVersionParsingFailure',
      status: 'False',
      reason: 'ParsedGroupVersions',
      message: 'All legacy kube types successfully parsed',
    },
    {
      type: 'NamespaceDeletionContentFailure',
      status: 'False',
      reason: 'ContentDeleted',
      message: 'All content successfully deleted, may be waiting on finalization',
    },
    content,
    finalizers,
  ];
}

/** New conditions keep the old lastTransitionTime where status did not change. */
export function mergeConditions(
  old: NamespaceCondition[] | undefined,
  next: NamespaceCondition[],
  now: string,
): NamespaceCondition[] {
  return next.map((c) => {
    const prev = old?.find((o) => o.type === c.type);
    return { ...c, lastTransitionTime: prev?.status === c.status ? prev.lastTransitionTime : now };
  });
}

export function sameConditions(a: NamespaceCondition[] | undefined, b: NamespaceCondition[]): boolean {
  if (!a || a.length !== b.length) return false;
  return b.every((c) => {
    const o = a.find((x) => x.type === c.type);
    return o?.status === c.status && o.reason === c.reason && o.message === c.message;
  });
}
