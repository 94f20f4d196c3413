// (a) Palisade with the Automatic FencePolicy: a StatefulSet's RWO pod on a partitioned node,
// with the phase times the NodeFence records.
import * as k8s from '@kubernetes/client-node';
import {
  FENCE_PLURAL,
  GROUP,
  type NodeFenceStatus,
  parseNodeFence,
  VERSION,
} from '../../lib/fencing/types.js';
import { perform } from '../../server/actions/perform.js';
import { automaticPolicy, type PolicyVariant, type Profile, STS, scenarioYaml } from './profiles.js';
import { type Rig, sleep, startRig } from './rig.js';
import {
  partitionAtRandom,
  place,
  relative,
  type Sample,
  since,
  violationsOf,
  watchRecovery,
} from './steps.js';

/** The NodeFence's status, if there is a valid one. */
async function fenceStatus(rig: Rig, node: string): Promise<NodeFenceStatus | undefined> {
  const custom = rig.cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  const o: unknown = await custom
    .getClusterCustomObject({ group: GROUP, version: VERSION, plural: FENCE_PLURAL, name: node })
    .catch(() => undefined);
  const f = o ? parseNodeFence(o) : undefined;
  return f?.ok ? f.value.status : undefined;
}

/** The NodeFence's phase times, once it says Released (it may lag the replacement by a recheck). */
async function fencePhases(rig: Rig, node: string, t0: number, waitMs: number) {
  const deadline = Date.now() + waitMs;
  let s = await fenceStatus(rig, node);
  while (s?.phase !== 'Released' && Date.now() < deadline) {
    await sleep(100);
    s = await fenceStatus(rig, node);
  }
  if (!s) return {};
  const rel = (iso?: string | null) => since(t0, iso ? Date.parse(iso) : undefined);
  return {
    detected: rel(s.detectedAt),
    fenced: rel(s.fencedAt),
    tainted: rel(s.steps.find((x) => x.phase === 'Releasing')?.at),
    released: rel(s.releasedAt),
  };
}

/**
 * A person at the console: as soon as the budget holds the node's fence (the Fencing page lists
 * it), Fence now through the guarded seam, typing the node's name and a reason (it is unsafe
 * while the budget holds fences), as the cluster admin.
 */
async function fenceByHand(rig: Rig, node: string, capMs: number) {
  const deadline = Date.now() + capMs;
  const held = () => rig.controller!.held().some((h) => h.node === node && h.reason === 'budget');
  while (!held() && Date.now() < deadline) await sleep(50);
  if (!held()) return;
  rig.marks.set('held');
  const token = rig.cluster.kc.getCurrentUser()?.token ?? '';
  const ctx = {
    conn: rig.conn!,
    actor: { name: 'admin', via: 'token' as const, credential: { kind: 'token' as const, token } },
    authorize: async () => ({ allowed: true }),
    heldByBudget: (n: string) =>
      rig.controller!.held().find((h) => h.node === n && h.reason === 'budget')?.why,
  };
  rig.marks.set('requested');
  await perform(ctx, {
    action: 'fenceNode',
    node,
    confirm: node,
    reason: 'the node is down: fence it now',
  }).catch((e) =>
    process.stderr.write(`[bench:mttr] Fence now on ${node} failed: ${(e as Error).message}\n`),
  );
}

export async function palisadeRep(p: Profile, variant?: PolicyVariant): Promise<Sample> {
  const rig = await startRig(scenarioYaml(p, 3), automaticPolicy(p, variant));
  try {
    const {
      node,
      olds: [old],
    } = await place(rig, p);
    const t0 = await partitionAtRandom(rig, p, [node]);
    watchRecovery(rig, STS, old);
    if (variant?.byHand) void fenceByHand(rig, node, p.palisadeCapMs);
    const done = await rig.marks.until('running', p.palisadeCapMs);
    const fence = await fencePhases(rig, node, t0, 5_000);
    const phases = { ...relative(rig, t0), ...numbers(fence) };
    return { mttrMs: since(t0, done), windowMs: p.palisadeCapMs, phases, violations: violationsOf(rig) };
  } finally {
    await rig.stop();
  }
}

const numbers = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
