// Everything the incident view reads, from the server's memory: the console's cache (nodes,
// pods), its workload watches, the fencing controller's informers and held list, the protectors'
// counts, the Volumes page's RWO rows and each watch's activity. No API call but the Volumes
// rows' ground-truth read on the embedded cluster.
import type {
  FenceGlance,
  PlacementInput,
  VolumePin,
  FencingInput,
  IncidentInput,
  ProtectorGlance,
  VolumeGlance,
} from '../../lib/incident/types.js';
import { durationMs, type NodeFence } from '../../lib/fencing/types.js';
import { cellsOf, summarize } from '../../lib/protection/status.js';
import { protectorKey } from '../../lib/protection/types.js';
import type { FencingService } from '../fencing/service.js';
import { budgetsOf, policyFor, upcomingFences } from '../fencing/world.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { ProtectionService } from '../protection/service.js';
import { rowsOf } from '../volumes/rows.js';

export interface IncidentServices {
  fencing?: FencingService;
  protection?: ProtectionService;
}

const ms = (t: string | null | undefined) => (t ? Date.parse(t) : undefined);

/** The warning window's end, once the fencing controller writes it (status.fenceAt, H2's contract). */
const fenceAtOf = (f: NodeFence) => ms((f.status as { fenceAt?: string | null }).fenceAt);

function fenceGlance(
  f: NodeFence,
  manual: boolean,
  timeout: string | undefined,
  paused: boolean,
): FenceGlance {
  const running = f.status.attempts.findLast((a) => a.result === 'Running');
  const g: FenceGlance = {
    name: f.metadata.name,
    node: f.spec.nodeName,
    policy: f.spec.policy,
    phase: f.status.phase,
    manual,
    ...(f.status.nodeUid ? { nodeUid: f.status.nodeUid } : {}),
    ...(f.spec.approvedBy ? { approvedBy: f.spec.approvedBy } : {}),
    ...(f.spec.cancelRequested ? { cancelRequestedBy: f.spec.cancelRequested.by } : {}),
    ...(paused ? { paused } : {}),
  };
  const fenceAt = fenceAtOf(f);
  if (fenceAt !== undefined) g.fenceAt = fenceAt;
  const last = f.status.steps.at(-1)?.at;
  if (last) g.phaseSince = Date.parse(last);
  if (running) {
    g.attemptStartedAt = Date.parse(running.startedAt);
    if (timeout) g.timeoutMs = durationMs(timeout);
  }
  return g;
}

export function fencingOf(svc: IncidentServices, conn: ClusterConnection): FencingInput {
  const controller = svc.fencing?.controllers.get(conn.id);
  if (!controller) return { enabled: false, covered: new Set(), fences: [], held: [], upcoming: [] };
  const inf = controller.informers;
  const fences = [...inf.fences.values()]
    .filter((f) => f.value)
    .map(({ value: f }) => {
      const policy = inf.policies.get(f!.spec.policy)?.value;
      return fenceGlance(
        f!,
        policy?.spec.approval === 'Manual',
        policy?.spec.timeout,
        policy?.spec.paused ?? false,
      );
    });
  const covered = new Set(
    [...inf.nodes.values()].filter((n) => policyFor(inf, n.name, undefined)).map((n) => n.name),
  );
  return {
    enabled: true,
    covered,
    fences,
    held: controller.held().map(({ node, reason, why }) => ({ node, reason, why })),
    // nodes a policy will fence that have no NodeFence yet: the warning window's announcements
    upcoming: upcomingFences(inf, conn).map((u) => ({ ...u, fenceAt: Date.parse(u.fenceAt) })),
    budgets: budgetsOf(inf).map(({ policy, budget: b }) => ({
      policy,
      paused: inf.policies.get(policy)?.value?.spec.paused ?? false,
      selected: b.selected,
      unhealthy: b.unhealthy,
      maxUnhealthy: b.maxUnhealthy,
    })),
  };
}

export function protectorsOf(svc: IncidentServices, conn: ClusterConnection, now: number): ProtectorGlance[] {
  const p = svc.protection;
  if (!p || (p.core.id !== conn.id && !p.cells.some((c) => c.cluster === conn.id))) return [];
  return p.store.all().map((e) => {
    const s = summarize(cellsOf(e.protector), now);
    return {
      key: protectorKey(e.protector),
      minAvailable: e.protector.spec.minAvailable,
      aggregated: s.aggregatedAvailableReplicas,
      estimated: s.estimatedAvailableReplicas,
      dangling: e.dangling,
    };
  });
}

async function volumesOf(svc: IncidentServices, conn: ClusterConnection): Promise<VolumeGlance[]> {
  const { rows } = await rowsOf(svc, conn);
  return rows.map((r) => ({
    pv: r.pv,
    ...(r.claim ? { claim: r.claim } : {}),
    risk: r.risk,
    exclusive: r.exclusive,
    attachments: r.attachments.map((a) => ({
      name: a.name,
      node: a.node,
      attached: a.attached,
      detaching: a.detaching,
      ...('deadline' in a.forceDetach ? { forceDetachAt: a.forceDetach.deadline } : {}),
    })),
  }));
}

export async function gather(svc: IncidentServices, conn: ClusterConnection): Promise<IncidentInput> {
  const now = Date.now();
  const { statefulSets, deployments } = conn.informers;
  return {
    now,
    nodes: conn.cache.nodeList(),
    pods: conn.cache.podList(),
    workloads: [...statefulSets.values(), ...deployments.values()],
    protectors: protectorsOf(svc, conn, now),
    fencing: fencingOf(svc, conn),
    volumes: await volumesOf(svc, conn),
    watches: conn.watchActivity(),
    services: [...conn.informers.endpointSlices.values()],
    placement: placementOf(conn),
  };
}

/** The nodes' labels and allocatable, and each bound volume that only some nodes reach. */
function placementOf(conn: ClusterConnection): PlacementInput {
  const { nodes, persistentVolumes } = conn.informers;
  const pins: VolumePin[] = [];
  for (const pv of persistentVolumes.values()) {
    const [namespace, name] = pv.boundTo?.split('/') ?? [];
    if (pv.affinity && namespace && name)
      pins.push({ pv: pv.name, claim: { namespace, name }, terms: pv.affinity });
  }
  return { rooms: [...nodes.values()].map((n) => n.room), pins };
}
