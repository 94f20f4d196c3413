// Placement after an incident (issue 25, finding 8): once the pods of a failed zone started
// elsewhere, replicas of one workload can end up on one node or in one rack, and the next failure
// of that node or rack takes them all. Flags a workload most of whose ready replicas share a node
// (the most specific), else all sit in one rack while the cluster has others, else in one zone
// while it has others; with the safe way to rebalance — evict one of them once the workload is at full
// strength (the Eviction API: its PodProtector and PDBs still apply), so the scheduler places the
// replacement again. Pure.
import type { PodView } from '../console/protocol.js';
import type { WorkloadView } from '../console/views.js';
import { isLive } from './nodes';
import type { IncidentInput, SpreadCode, SpreadWarning } from './types.js';

export type { SpreadCode, SpreadWarning } from './types.js';

/** The workload a pod belongs to: its StatefulSet, or the Deployment of its ReplicaSet. */
export function workloadOf(p: PodView, byKey: Map<string, WorkloadView>): WorkloadView | undefined {
  if (!p.owner) return undefined;
  if (p.owner.kind === 'StatefulSet') return byKey.get(`StatefulSet/${p.namespace}/${p.owner.name}`);
  if (p.owner.kind !== 'ReplicaSet') return undefined;
  // a ReplicaSet of a Deployment is named <deployment>-<pod-template-hash>
  const cut = p.owner.name.lastIndexOf('-');
  return cut > 0 ? byKey.get(`Deployment/${p.namespace}/${p.owner.name.slice(0, cut)}`) : undefined;
}

interface Placed {
  pod: PodView;
  node: string;
  rack: string;
  zone: string;
}

function shared(placed: Placed[], key: 'node' | 'rack' | 'zone'): [string, Placed[]] | undefined {
  const groups = new Map<string, Placed[]>();
  for (const p of placed) groups.set(p[key], [...(groups.get(p[key]) ?? []), p]);
  // a node is flagged when it holds most of the replicas (a quorum's worth): two of a stateless
  // Deployment's eight on one node is what a scheduler does, two of a database's three is not
  if (key === 'node')
    return [...groups]
      .filter(([, ps]) => ps.length > 1 && ps.length * 2 > placed.length)
      .sort((a, b) => b[1].length - a[1].length)[0];
  return groups.size === 1 ? [...groups][0] : undefined;
}

export function spreadOf(i: IncidentInput): SpreadWarning[] {
  const nodes = new Map(i.nodes.map((n) => [n.name, n]));
  const racks = new Set(i.nodes.filter((n) => n.ready === 'Ready').map((n) => `${n.zone}/${n.rack}`));
  const zones = new Set(i.nodes.filter((n) => n.ready === 'Ready').map((n) => n.zone));
  const byKey = new Map(i.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, w]));
  const placedBy = new Map<WorkloadView, Placed[]>();
  for (const pod of i.pods) {
    const n = pod.node ? nodes.get(pod.node) : undefined;
    const w = workloadOf(pod, byKey);
    if (!n || !w || !pod.ready || !isLive(pod) || pod.deletionTimestamp) continue;
    placedBy.set(w, [
      ...(placedBy.get(w) ?? []),
      { pod, node: n.name, rack: `${n.zone}/${n.rack}`, zone: n.zone },
    ]);
  }
  const out: SpreadWarning[] = [];
  for (const [w, placed] of placedBy) {
    if (placed.length < 2) continue;
    const found: [SpreadCode, [string, Placed[]] | undefined][] = [
      ['same-node', shared(placed, 'node')],
      ['same-rack', racks.size > 1 ? shared(placed, 'rack') : undefined],
      ['same-zone', zones.size > 1 ? shared(placed, 'zone') : undefined],
    ];
    const hit = found.find(([, s]) => s);
    if (!hit) continue;
    const [code, [where, ps]] = hit as [SpreadCode, [string, Placed[]]];
    const newest = [...ps].sort((a, b) => (b.pod.createdAt ?? 0) - (a.pod.createdAt ?? 0))[0]!.pod;
    out.push({
      workload: { kind: w.kind, namespace: w.namespace, name: w.name },
      code,
      where: code === 'same-rack' ? where.split('/')[1] || where : where,
      pods: ps.map((p) => p.pod.name).sort(),
      ready: placed.length,
      evict: { namespace: newest.namespace, name: newest.name },
      fullStrength: w.readyReplicas >= w.replicas,
    });
  }
  return out.sort(
    (a, b) => codeRank(a.code) - codeRank(b.code) || a.workload.name.localeCompare(b.workload.name),
  );
}

const codeRank = (c: SpreadCode) => ({ 'same-node': 0, 'same-rack': 1, 'same-zone': 2 })[c];

/** "orders-db: 2 of its 3 ready replicas on node a1-1 (orders-db-0, orders-db-2)" and the safe next step. */
export function spreadText(s: SpreadWarning): { what: string; next: string } {
  const place = { 'same-node': 'node', 'same-rack': 'rack', 'same-zone': 'zone' }[s.code];
  const all = s.pods.length === s.ready;
  const what = `${s.workload.name}: ${all ? `all ${s.ready} ready replicas` : `${s.pods.length} of its ${s.ready} ready replicas`} in one ${place}, ${s.where} (${s.pods.join(', ')}): losing it takes ${all ? 'them all' : 'them together'}`;
  const next = s.fullStrength
    ? `evict ${s.evict.namespace}/${s.evict.name} (its protector and PDBs apply): the scheduler places it again, elsewhere if its spread rules allow`
    : `wait until ${s.workload.name} is at full strength, then evict ${s.evict.name}`;
  return { what, next };
}
