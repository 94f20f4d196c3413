// The RWO attach view: one row per PersistentVolume from the console's views of PVs, PVCs,
// VolumeAttachments, pods, nodes and FailedAttachVolume events — where it is attached, who
// uses it, who waits for it and since when, stuck detaches, the force-detach countdown and,
// on the embedded cluster, which nodes really write to it — with a risk and a one-line
// explanation an incident commander can act on. Pure: the caller passes `now`.
import type { PodView } from '../console/protocol.js';
import { hasTaint, nodeDisplayState, OUT_OF_SERVICE_TAINT } from '../console/ui/states.js';
import type { VolumeView } from '../console/views.js';
import { multiAttachAllowed } from './attach.js';
import { attachmentRow, DEFAULT_STUCK_AFTER_MS } from './rwoDetach.js';
import { splitPods } from './rwoPods.js';
import { classify } from './rwoRisk.js';
import type {
  AttachmentInput,
  DepartedPod,
  EventInput,
  NodeHealth,
  RwoInput,
  RwoRow,
  TruthProcess,
  VolumeWriter,
} from './rwoTypes.js';

export type * from './rwoTypes.js';
export { attachFailure } from './rwoPods.js';

const RISK_ORDER = { 'split-brain-risk': 0, stuck: 1, waiting: 2, ok: 3 } as const;

function group<T>(items: readonly T[], keyOf: (t: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = keyOf(t);
    if (k === undefined) continue;
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  }
  return m;
}

/** The lookups every row needs, built once per call. */
function indexes(input: RwoInput) {
  const claimPods = input.pods.filter((p) => p.claims.length > 0);
  const byClaim = new Map<string, PodView[]>();
  for (const p of claimPods)
    for (const c of p.claims)
      byClaim.set(`${p.namespace}/${c}`, [...(byClaim.get(`${p.namespace}/${c}`) ?? []), p]);
  const departed = new Map<string, DepartedPod[]>();
  for (const d of input.departed ?? [])
    for (const c of d.claims)
      departed.set(`${d.namespace}/${c}`, [...(departed.get(`${d.namespace}/${c}`) ?? []), d]);
  const failures = input.events.filter(
    (e) => e.reason === 'FailedAttachVolume' && e.involved.kind !== 'Node',
  );
  return {
    nodes: new Map(input.nodes.map((n) => [n.name, n])),
    pvcs: new Map(input.pvcs.map((c) => [`${c.namespace}/${c.name}`, c])),
    podsByClaim: byClaim,
    podsByUid: new Map(claimPods.map((p) => [p.uid, p])),
    attachments: group(input.attachments, (a) => a.pv),
    failuresByPod: group(failures, (e) => e.involved.uid || `${e.involved.namespace}/${e.involved.name}`),
    departedByClaim: departed,
    writers: group(
      (input.truth?.processes ?? []).flatMap((p) => p.volumes.map((pv) => ({ pv, p }))),
      (w) => w.pv,
    ),
  };
}
type Indexes = ReturnType<typeof indexes>;

function healthOf(ix: Indexes, now: number) {
  return (name: string | undefined): NodeHealth | undefined => {
    if (!name) return undefined;
    const n = ix.nodes.get(name);
    return n ? nodeDisplayState(n, now) : 'gone';
  };
}

function claimOf(pv: VolumeView): { namespace: string; name: string } | undefined {
  const ref = pv.boundTo;
  const slash = ref?.indexOf('/') ?? -1;
  if (!ref || slash < 0) return undefined;
  return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/** Pods of the claim, unless the claim is bound to another volume (a stale claimRef). */
function podsOf(ix: Indexes, pv: string, key: string | undefined): PodView[] {
  if (!key) return [];
  const pvc = ix.pvcs.get(key);
  if (pvc?.boundTo && pvc.boundTo !== pv) return [];
  return ix.podsByClaim.get(key) ?? [];
}

function failuresOf(ix: Indexes) {
  return (p: PodView): EventInput[] => [
    ...(ix.failuresByPod.get(p.uid) ?? []),
    ...(ix.failuresByPod.get(`${p.namespace}/${p.name}`) ?? []).filter((e) => !e.involved.uid),
  ];
}

function writersOf(ix: Indexes, input: RwoInput, pv: string): VolumeWriter[] | undefined {
  if (!input.truth) return undefined;
  const fenced = input.truth.fenced;
  return (ix.writers.get(pv) ?? []).map(({ p }: { p: TruthProcess }) => {
    const cut = fenced[p.node] ?? [];
    const pod = ix.podsByUid.get(p.podUid);
    return {
      node: p.node,
      pod: `${p.namespace}/${p.podName}`,
      podUid: p.podUid,
      canWrite: !cut.includes('*') && !cut.includes(pv),
      api: !pod ? 'gone' : pod.node === p.node ? 'user' : 'elsewhere',
    };
  });
}

function lastDeparture(ix: Indexes, key: string | undefined, node: string): number | undefined {
  const times = (key ? (ix.departedByClaim.get(key) ?? []) : [])
    .filter((d) => d.node === node)
    .map((d) => d.at);
  return times.length ? Math.max(...times) : undefined;
}

function rowOf(pv: VolumeView, ix: Indexes, input: RwoInput): RwoRow {
  const { now } = input;
  const health = healthOf(ix, now);
  const claim = claimOf(pv);
  const key = claim && `${claim.namespace}/${claim.name}`;
  const exclusive = !multiAttachAllowed(pv.accessModes);
  const vas: AttachmentInput[] = ix.attachments.get(pv.name) ?? [];
  const { users, waiters } = splitPods(podsOf(ix, pv.name, key), {
    pv: pv.name,
    exclusive,
    attachments: vas,
    health,
    failures: failuresOf(ix),
  });
  const attachments = vas.map((a) => {
    const node = ix.nodes.get(a.node);
    return attachmentRow(a, {
      now,
      settings: input.forceDetach,
      stuckAfterMs: input.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS,
      health: health(a.node) ?? 'gone',
      kubeReady: node?.ready === 'Ready',
      outOfService: !!node && hasTaint(node, OUT_OF_SERVICE_TAINT),
      fenced: input.fencedNodes?.has(a.node) ?? false,
      users,
      departedAt: lastDeparture(ix, key, a.node),
    });
  });
  const writers = writersOf(ix, input, pv.name);
  const parts = {
    pv: pv.name,
    accessModes: pv.accessModes,
    exclusive,
    attachments,
    attachedTo: attachments.filter((a) => a.attached).map((a) => a.node),
    users,
    waiters,
    ...(writers ? { writers } : {}),
  };
  const row: RwoRow = { ...parts, ...classify(parts, claim, input.fencedNodes) };
  if (pv.phase) row.phase = pv.phase;
  if (pv.storageClass) row.storageClass = pv.storageClass;
  if (claim) row.claim = claim;
  return row;
}

/** One row per PersistentVolume, the riskiest first. */
export function buildRwoRows(input: RwoInput): RwoRow[] {
  const ix = indexes(input);
  return input.pvs
    .map((pv) => rowOf(pv, ix, input))
    .sort((a, b) => RISK_ORDER[a.risk] - RISK_ORDER[b.risk] || a.pv.localeCompare(b.pv));
}

/**
 * The nodes a volume's writer could be on: where it is attached, where its pods are, and where
 * pods that used it were last seen (a force-deleted pod's process may still run there). Where
 * to read the ground truth, without reading every node's processes.
 */
export function writerCandidateNodes(input: Pick<RwoInput, 'attachments' | 'pods' | 'departed'>): string[] {
  const out = new Set<string>(input.attachments.map((a) => a.node));
  for (const p of input.pods) if (p.node && p.claims.length) out.add(p.node);
  for (const d of input.departed ?? []) if (d.node) out.add(d.node);
  return [...out];
}
