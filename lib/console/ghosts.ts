// Ghosts: processes the embedded cluster's ground truth shows running where the Kubernetes
// API cannot see them. This is the danger seed 000 describes — a partitioned node keeps
// running a pod the API has already given up on, or replaced elsewhere. Only the embedded
// cluster has a ground truth, so this is simulation-only insight.
import type { NodeState, PodView } from './protocol.js';

/** A running process as the embedded cluster's infrastructure reports it. */
export interface ProcessView {
  id: number;
  node: string;
  podUid: string;
  podName: string;
  namespace: string;
  startedAt: number;
  /** PersistentVolume names it writes to */
  volumes: string[];
}

export type GhostReason = 'pod-deleted' | 'pod-replaced' | 'pod-elsewhere' | 'node-unseen';

export interface Ghost extends ProcessView {
  reason: GhostReason;
  /** deleted/replaced/elsewhere: the API believes this process is not there */
  critical: boolean;
  message: string;
}

export interface ApiView {
  podByUid(uid: string): PodView | undefined;
  podByName(namespace: string, name: string): PodView | undefined;
  nodeState(name: string): NodeState | undefined;
}

function judge(p: ProcessView, api: ApiView): Omit<Ghost, keyof ProcessView> | undefined {
  const pod = api.podByUid(p.podUid);
  const where = `${p.namespace}/${p.podName} on ${p.node}`;
  if (!pod) {
    const now = api.podByName(p.namespace, p.podName);
    if (now)
      return {
        reason: 'pod-replaced',
        critical: true,
        message: `${where} still runs, but the API has replaced the pod${now.node ? ` (new pod on ${now.node})` : ''}`,
      };
    return {
      reason: 'pod-deleted',
      critical: true,
      message: `${where} still runs, but its pod is gone from the API`,
    };
  }
  if (pod.node !== p.node)
    return {
      reason: 'pod-elsewhere',
      critical: true,
      message: `${where} still runs, but the API has the pod on ${pod.node ?? 'no node'}`,
    };
  const node = api.nodeState(p.node);
  if (node !== 'Ready')
    return {
      reason: 'node-unseen',
      critical: false,
      message: `${where} still runs; the API cannot see it (node ${node ?? 'gone'}, pod shown ${pod.state})`,
    };
  return undefined;
}

/** Every running process the API is wrong or blind about, critical ones first. */
export function findGhosts(processes: Iterable<ProcessView>, api: ApiView): Ghost[] {
  const out: Ghost[] = [];
  for (const p of processes) {
    const verdict = judge(p, api);
    if (verdict) out.push({ ...p, ...verdict });
  }
  return out.sort(
    (a, b) =>
      Number(b.critical) - Number(a.critical) ||
      a.node.localeCompare(b.node) ||
      `${a.namespace}/${a.podName}`.localeCompare(`${b.namespace}/${b.podName}`),
  );
}

/** Ghost counts per node, for the map's overlay. */
export function ghostsByNode(ghosts: readonly Ghost[]): Map<string, { total: number; critical: number }> {
  const m = new Map<string, { total: number; critical: number }>();
  for (const g of ghosts) {
    const c = m.get(g.node) ?? { total: 0, critical: 0 };
    c.total++;
    if (g.critical) c.critical++;
    m.set(g.node, c);
  }
  return m;
}
