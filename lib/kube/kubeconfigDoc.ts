// Kubeconfig documents as plain data: rename a single-context kubeconfig (the embedded
// cluster writes "palisade-embedded") and merge several into one, as kubectl does for
// KUBECONFIG=a:b:c — the first file to name a cluster, user or context wins, and the first
// file's current-context is the merged one. Pure: parsing and writing YAML is the caller's.

export interface Named {
  name: string;
  [k: string]: unknown;
}

export interface KubeconfigDoc {
  apiVersion?: string;
  kind?: string;
  clusters?: Named[];
  users?: Named[];
  contexts?: (Named & { context?: { cluster?: string; user?: string; [k: string]: unknown } })[];
  'current-context'?: string;
  preferences?: unknown;
  [k: string]: unknown;
}

/** One context, its cluster and its user all called `name` (for a kubeconfig with one context). */
export function renameSingleContext(doc: KubeconfigDoc, name: string): KubeconfigDoc {
  const contexts = doc.contexts ?? [];
  if (contexts.length !== 1) throw new Error(`expected one context, found ${contexts.length}`);
  const ctx = contexts[0];
  const clusterName = ctx.context?.cluster;
  const userName = ctx.context?.user;
  return {
    ...doc,
    clusters: (doc.clusters ?? []).map((c) => (c.name === clusterName ? { ...c, name } : c)),
    users: (doc.users ?? []).map((u) => (u.name === userName ? { ...u, name } : u)),
    contexts: [{ ...ctx, name, context: { ...ctx.context, cluster: name, user: name } }],
    'current-context': name,
  };
}

function firstWins(lists: (Named[] | undefined)[]): Named[] {
  const seen = new Set<string>();
  const out: Named[] = [];
  for (const list of lists)
    for (const item of list ?? []) {
      if (seen.has(item.name)) continue;
      seen.add(item.name);
      out.push(item);
    }
  return out;
}

export function mergeKubeconfigs(docs: KubeconfigDoc[]): KubeconfigDoc {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: firstWins(docs.map((d) => d.clusters)),
    users: firstWins(docs.map((d) => d.users)),
    contexts: firstWins(docs.map((d) => d.contexts)) as KubeconfigDoc['contexts'],
    'current-context': docs.find((d) => d['current-context'])?.['current-context'] ?? '',
    preferences: {},
  };
}
