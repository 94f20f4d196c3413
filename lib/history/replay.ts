// Replay: the nodes of the map as they were at time T, reconstructed from the history alone —
// the last Ready transition at or before T, the fence phase then, the last simulated fault, and
// the pods that ran there (each pod's last placement entry: bound, terminating; deleted ones gone).
// A node with no entry before T is "unrecorded", never guessed Ready.
import type { NodeState } from '../console/protocol';
import type { HistoryEntry } from './types';

export type ReplayReady = NodeState | 'unrecorded';

export interface ReplayNode {
  node: string;
  ready: ReplayReady;
  /** when that Ready state began (ISO), if recorded */
  since?: string;
  /** the fence's phase at T, if the node had a NodeFence by then */
  fence?: { phase: string; since: string; name: string };
  /** the last simulated fault at or before T (partition, heal, power-off...) */
  fault?: { verb: string; at: string };
  /** the pods on it at T, by name (those recorded: see the pod kind) */
  pods?: ReplayPod[];
  /** where it sits, as the map groups it (from the live Node; absent for a node gone since) */
  zone?: string;
  rack?: string;
}

/** The replay's nodes grouped as the map groups them: zone, then rack; nodes gone since last. */
export function replayLayout(
  nodes: ReplayNode[],
): { zone: string; racks: { rack: string; nodes: ReplayNode[] }[] }[] {
  const zones = new Map<string, Map<string, ReplayNode[]>>();
  for (const n of nodes) {
    const z = n.zone ?? '';
    const racks = zones.get(z) ?? new Map<string, ReplayNode[]>();
    racks.set(n.rack ?? '', [...(racks.get(n.rack ?? '') ?? []), n]);
    zones.set(z, racks);
  }
  const last = (a: string, b: string) =>
    a === '' ? 1 : b === '' ? -1 : a.localeCompare(b, 'en', { numeric: true });
  return [...zones]
    .sort(([a], [b]) => last(a, b))
    .map(([zone, racks]) => ({
      zone,
      racks: [...racks].sort(([a], [b]) => last(a, b)).map(([rack, ns]) => ({ rack, nodes: ns })),
    }));
}

export interface ReplayPod {
  namespace: string;
  name: string;
  terminating: boolean;
}

export interface Replay {
  cluster: string;
  at: string;
  nodes: ReplayNode[];
}

const READY_STATES: ReadonlySet<string> = new Set(['Ready', 'NotReady', 'Unknown']);

/** The node an entry is about: the subject for Node entries, details.node for fences. */
export function nodeOf(e: HistoryEntry): string | undefined {
  if (e.subject.kind === 'Node') return e.subject.name;
  const n = e.details?.node;
  return typeof n === 'string' ? n : undefined;
}

type Acc = Map<string, ReplayNode>;
/** each pod's node by uid, and which uid holds each namespace/name */
type Placed = { byUid: Map<string, { node: string; pod: ReplayPod }>; byName: Map<string, string> };

/**
 * A pod placement entry: where the pod (by uid) is after it. A namespace and name is one pod at a
 * time, so a newer pod of that name replaces an older one whose deletion went unrecorded (the
 * console was down, or the cluster was rebuilt under the same id): no ghost beside its successor.
 */
function place(placed: Placed, e: HistoryEntry, node: string) {
  const name = `${e.subject.namespace ?? ''}/${e.subject.name}`;
  const uid = e.subject.uid ?? name;
  if (e.reason === 'Deleted') {
    placed.byUid.delete(uid);
    if (placed.byName.get(name) === uid) placed.byName.delete(name);
    return;
  }
  const other = placed.byName.get(name);
  if (other !== undefined && other !== uid) placed.byUid.delete(other);
  placed.byName.set(name, uid);
  placed.byUid.set(uid, {
    node,
    pod: {
      namespace: e.subject.namespace ?? '',
      name: e.subject.name,
      terminating: e.reason === 'Terminating',
    },
  });
}

function apply(acc: Acc, e: HistoryEntry, placed: Placed) {
  const node = nodeOf(e);
  if (!node) return;
  if (e.kind === 'pod') return place(placed, e, node);
  const n = acc.get(node) ?? { node, ready: 'unrecorded' as ReplayReady };
  if (e.kind === 'node-condition' && READY_STATES.has(e.reason)) {
    n.ready = e.reason as NodeState;
    n.since = e.at;
  } else if (e.kind === 'fence-step' || e.kind === 'fence-cancel') {
    n.fence = { phase: e.reason, since: e.at, name: e.subject.name };
  } else if (e.kind === 'fault') {
    const verb = typeof e.details?.verb === 'string' ? e.details.verb : e.reason;
    n.fault = { verb, at: e.at };
  } else return;
  acc.set(node, n);
}

/**
 * The node states at `at` from entries in any order (the full history or the last entry per node
 * and kind); `nodes` lists nodes to show even without any entry (as unrecorded).
 */
export function replayNodes(
  cluster: string,
  entries: HistoryEntry[],
  at: string,
  nodes: string[] = [],
): Replay {
  const t = Date.parse(at);
  const acc: Acc = new Map(nodes.map((node) => [node, { node, ready: 'unrecorded' as ReplayReady }]));
  const before = entries
    .filter((e) => e.cluster === cluster && Date.parse(e.at) <= t)
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : 1));
  const placed: Placed = { byUid: new Map(), byName: new Map() };
  for (const e of before) apply(acc, e, placed);
  for (const { node, pod } of placed.byUid.values()) {
    const n = acc.get(node) ?? { node, ready: 'unrecorded' as ReplayReady };
    n.pods = [...(n.pods ?? []), pod];
    acc.set(node, n);
  }
  for (const n of acc.values())
    n.pods?.sort((a, b) =>
      `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`, 'en', { numeric: true }),
    );
  return {
    cluster,
    at: new Date(t).toISOString(),
    nodes: [...acc.values()].sort((a, b) => a.node.localeCompare(b.node, 'en', { numeric: true })),
  };
}

/** The kinds replay reads. */
export const REPLAY_KINDS = ['node-condition', 'fence-step', 'fence-cancel', 'fault'] as const;
