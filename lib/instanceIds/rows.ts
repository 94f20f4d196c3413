// The console's instance-IDs page, one row per workload that uses instance IDs (its map
// annotation is set, or it is labelled palisade.dev/instance-ids-enabled=true), built from the
// console's trimmed views: the workload, its ReplicaSets (a Deployment's pods name those), its
// pods, and on the embedded cluster the ground truth of which running processes hold which ID.
// Pure.
import type { PodView } from '../console/protocol.js';
import type { StopVerdict } from '../guard/stopped.js';
import { type HolderRecord, parseHolderRecords } from './holders.js';
import type { WorkloadView } from '../console/views.js';
import { type WorkloadKind, workloadKey } from './types.js';
import { describeIdMap, type IdMapView, type IdPod } from './view.js';

/** A running process of the embedded cluster and the ID its program holds, if any. */
export interface TruthProcess {
  namespace: string;
  podName: string;
  node: string;
  instanceId?: { workload: string; id: number; since: number };
}

export interface HolderView {
  id: number;
  pod: string;
  node: string;
  since: number;
}

export interface InstanceIdRow extends IdMapView {
  /** "namespace/Kind/name" */
  key: string;
  kind: WorkloadKind;
  namespace: string;
  name: string;
  readyReplicas: number;
  /** labelled palisade.dev/instance-ids-enabled=true */
  enabled: boolean;
  /** the annotation's text as stored, when set */
  raw?: string;
  /** where the holders ran (palisade.dev/instance-id-nodes), when set */
  records?: string;
  /**
   * stale entries whose pods are not known to have stopped (lib/guard/stopped.ts): their IDs
   * are not given to another pod, and why — "metrics-…-b48lf on c2-2: node unreachable, not fenced"
   */
  unconfirmed: { id: number; pod: string; reason: string; text: string }[];
  pods: { name: string; node?: string; state: string; id?: number }[];
  /** embedded cluster only: the processes whose program holds an ID of this workload */
  holders?: HolderView[];
  /** embedded cluster only: IDs two or more running processes hold at once */
  duplicates?: { id: number; pods: string[] }[];
}

export const isTracked = (w: WorkloadView) => w.instanceIds !== undefined || !!w.instanceIdsEnabled;

const idPod = (p: PodView): IdPod => ({
  name: p.name,
  uid: p.uid,
  ...(p.node ? { node: p.node } : {}),
  terminating: p.deletionTimestamp !== undefined,
  finished: p.phase === 'Succeeded' || p.phase === 'Failed',
});

export function instanceIdRows(input: {
  workloads: Iterable<WorkloadView>;
  replicaSets: Iterable<WorkloadView>;
  pods: Iterable<PodView>;
  truth?: Iterable<TruthProcess>;
  /** whether a pod the map names stopped for sure, as the watches see it (lib/guard/stopped.ts) */
  judge?: (namespace: string, pod: string, record?: HolderRecord) => StopVerdict;
}): InstanceIdRow[] {
  const rows = [...input.workloads].filter(
    (w): w is WorkloadView & { kind: 'Deployment' | 'StatefulSet' } =>
      w.kind !== 'ReplicaSet' && isTracked(w),
  );
  const keyOf = (ns: string, kind: string, name: string) => `${ns}/${kind}/${name}`;
  const wanted = new Set(rows.map((w) => keyOf(w.namespace, w.kind, w.name)));
  // a Deployment's pods name its ReplicaSets
  const deploymentOfSet = new Map<string, string>();
  for (const rs of input.replicaSets)
    if (rs.owner?.kind === 'Deployment') deploymentOfSet.set(`${rs.namespace}/${rs.name}`, rs.owner.name);
  const podsOf = new Map<string, PodView[]>();
  for (const p of input.pods) {
    if (!p.owner) continue;
    const key =
      p.owner.kind === 'ReplicaSet'
        ? deploymentOfSet.has(`${p.namespace}/${p.owner.name}`)
          ? keyOf(p.namespace, 'Deployment', deploymentOfSet.get(`${p.namespace}/${p.owner.name}`)!)
          : undefined
        : keyOf(p.namespace, p.owner.kind, p.owner.name);
    if (!key || !wanted.has(key)) continue;
    const list = podsOf.get(key);
    if (list) list.push(p);
    else podsOf.set(key, [p]);
  }
  const holdersOf = input.truth ? new Map<string, HolderView[]>() : undefined;
  for (const t of input.truth ?? []) {
    if (!t.instanceId) continue;
    const h = { id: t.instanceId.id, pod: t.podName, node: t.node, since: t.instanceId.since };
    holdersOf!.set(t.instanceId.workload, [...(holdersOf!.get(t.instanceId.workload) ?? []), h]);
  }
  return rows
    .map((w): InstanceIdRow => {
      const key = workloadKey({ kind: w.kind, namespace: w.namespace, name: w.name });
      const pods = (podsOf.get(key) ?? []).sort((a, b) => a.name.localeCompare(b.name));
      const view = describeIdMap({ raw: w.instanceIds, replicas: w.replicas, pods: pods.map(idPod) });
      const idByPod = new Map(
        view.entries.filter((e) => e.pod && e.id !== undefined).map((e) => [e.pod!, e.id!]),
      );
      const row: InstanceIdRow = {
        key,
        kind: w.kind,
        namespace: w.namespace,
        name: w.name,
        readyReplicas: w.readyReplicas,
        enabled: !!w.instanceIdsEnabled,
        ...(w.instanceIds !== undefined ? { raw: w.instanceIds } : {}),
        ...(w.instanceIdNodes !== undefined ? { records: w.instanceIdNodes } : {}),
        ...view,
        unconfirmed: unconfirmedOf(view.stale, w.namespace, w.instanceIdNodes, input.judge),
        pods: pods.map((p) => ({
          name: p.name,
          ...(p.node ? { node: p.node } : {}),
          state: p.state,
          ...(idByPod.has(p.name) ? { id: idByPod.get(p.name) } : {}),
        })),
      };
      if (holdersOf) {
        const holders = (holdersOf.get(key) ?? []).sort((a, b) => a.id - b.id || a.pod.localeCompare(b.pod));
        const byId = new Map<number, string[]>();
        for (const h of holders) byId.set(h.id, [...(byId.get(h.id) ?? []), h.pod]);
        row.holders = holders;
        row.duplicates = [...byId].filter(([, ps]) => ps.length > 1).map(([id, ps]) => ({ id, pods: ps }));
      }
      return row;
    })
    .sort((a, b) => a.key.localeCompare(b.key));
}

function unconfirmedOf(
  stale: IdMapView['stale'],
  namespace: string,
  records: string | undefined,
  judge: ((namespace: string, pod: string, record?: HolderRecord) => StopVerdict) | undefined,
): InstanceIdRow['unconfirmed'] {
  if (!judge) return [];
  const byPod = parseHolderRecords(records);
  const out: InstanceIdRow['unconfirmed'] = [];
  for (const e of stale) {
    if (!e.pod || e.id === undefined) continue;
    const v = judge(namespace, e.pod, byPod.get(e.pod));
    if (!v.stopped) out.push({ id: e.id, pod: e.pod, reason: v.reason, text: v.text });
  }
  return out;
}
