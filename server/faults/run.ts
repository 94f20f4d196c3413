// The randomized fault run (issue 23, 8): the embedded cluster (twelve nodes in three zones,
// StatefulSets with RWO volumes, protected workloads, two workloads taking instance IDs) with
// two Palisade replicas in front of it (separate processes, as the chart runs them: deletion
// protection's webhook behind one balancer, the console and the instance-ID endpoint behind
// another, fencing on with an automatic FencePolicy and the built-in power agent). Each seed's
// schedule (sim/faults/schedule.ts) is carried out — partitions of one node and of many, power
// cuts, kubelet crashes, partitions healed in the middle of the node's fence, a replica killed
// and started again — then everything is healed and the run waits for every pod to be Ready
// again. Every invariant of the checker is judged all along (the ground truth's: at most one
// process per StatefulSet identity, one node writing each RWO volume, no instance ID held by
// two running pods; the API view's: no protected workload pushed below its floor); a seed
// passes with no violation and liveness within the bound.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { PodTrail } from './podTrail.js';
import { API_VERSION, FENCE_PLURAL, GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import { INSTANCE_IDS_LABEL } from '../../lib/instanceIds/types.js';
import {
  GROUP as PROTECTION_GROUP,
  PLURAL as PROTECTOR_PLURAL,
  VERSION as PROTECTION_VERSION,
  type PodProtector,
} from '../../lib/protection/types.js';
import type { Violation } from '../../sim/checker/checker.js';
import { PROTECTION_INVARIANT } from '../../sim/checker/protection.js';
import { type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import {
  describeIncident,
  generateSchedule,
  type Incident,
  type Schedule,
} from '../../sim/faults/schedule.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { DEFAULT_LEADER_ELECTION } from '../runtime/manager.js';
import { type Replicas, startReplicas } from '../test/replicas.js';

export const FAULT_SCENARIO = `
name: faults
description: the demo cluster's shape with every timer scaled down, for the randomized fault run
# as on the demo cluster (20 s toleration, a fence 10 s + 10 s after Unknown), the unreachable
# taint evicts a node's pods before its fence can run (2 s here against 4 s + 3 s): the window in
# which a replacement used to take an evicted pod's instance ID while it still ran (issue 23)
durations:
  nodeMonitorGracePeriod: 3s
  nodeMonitorPeriod: 500ms
  leaseDuration: 3s
  leaseRenewInterval: 1s
  nodeStatusUpdate: 1s
  defaultToleration: 2s
  forceDetachTimeout: 30s
  forceDetach: true
  podGcInterval: 1s
  containerStart: 300ms
  podReadyDelay: 500ms
  attachDelay: 200ms
nodes:
  cpu: "8"
  memory: 32Gi
  pods: 110
  zones:
    - name: zone-a
      racks: [{ name: a1, count: 2 }, { name: a2, count: 2 }]
    - name: zone-b
      racks: [{ name: b1, count: 2 }, { name: b2, count: 2 }]
    - name: zone-c
      racks: [{ name: c1, count: 2 }, { name: c2, count: 2 }]
storageClasses:
  - name: san-rwo
    bindingMode: WaitForFirstConsumer
    zones: [zone-a, zone-b]
    reclaimPolicy: Delete
  - name: nfs-rwx
    bindingMode: Immediate
    default: true
workloads:
  - kind: StatefulSet
    name: orders-db
    namespace: shop
    replicas: 3
    protect: true
    volume: { storageClass: san-rwo, size: 10Gi, accessMode: ReadWriteOnce }
    terminationGracePeriodSeconds: 5
    preStop: 1s
    sigtermExit: 1s
    zones: [zone-a, zone-b]
  - kind: StatefulSet
    name: queue
    namespace: shop
    replicas: 3
    instanceIds: true
    volume: { storageClass: san-rwo, size: 5Gi, accessMode: ReadWriteOncePod }
    terminationGracePeriodSeconds: 5
    zones: [zone-a, zone-b]
  - kind: Deployment
    name: storefront
    namespace: shop
    replicas: 6
    terminationGracePeriodSeconds: 5
  - kind: Deployment
    name: checkout
    namespace: shop
    replicas: 4
    protect: true
  - kind: Deployment
    name: metrics
    namespace: monitoring
    replicas: 6
    instanceIds: true
    terminationGracePeriodSeconds: 5
`;

/** the FencePolicy of the run: automatic, the built-in power agent, every wait scaled down */
const POLICY = {
  apiVersion: API_VERSION,
  kind: 'FencePolicy',
  metadata: { name: 'faults' },
  spec: {
    unhealthyConditions: [
      { type: 'Ready', status: 'Unknown', duration: '4s' },
      { type: 'Ready', status: 'False', duration: '4s' },
    ],
    approval: 'Automatic',
    retryCount: 3,
    retryInterval: '2s',
    timeout: '10s',
    releaseStrategy: 'OutOfServiceTaint',
    warningWindow: '3s',
    agent: { type: 'power', action: 'off' },
  },
};

export interface FaultRig {
  cluster: EmbeddedCluster;
  replicas: Replicas;
  /** every PodProtector status written lately, for a violation's evidence */
  protectors: ProtectorHistory;
  /** what happened to each pod in the API lately, for a violation's evidence */
  pods: PodTrail;
  nodes: string[];
  /** which replicas are down now (killed by an incident) */
  down: Set<number>;
  stop(): Promise<void>;
}

export interface SeedResult {
  seed: number;
  schedule: Schedule;
  /** every violation the checkers saw while the seed ran (none: the seed passed on safety) */
  violations: Violation[];
  /** from the last heal to every pod Ready again (undefined: not within the bound) */
  liveMs?: number;
  /** what was still not right when the bound passed */
  notLive?: string;
  /** what was done, when (ms since the seed began) */
  log: string[];
  durationMs: number;
}

export interface RigOptions {
  log?: (line: string) => void;
}

export async function startFaultRig(o: RigOptions = {}): Promise<FaultRig> {
  const log = o.log ?? (() => undefined);
  const dir = await mkdtemp(join(tmpdir(), 'palisade-faults-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const cluster = await startEmbeddedCluster({
    scenario: parseScenario(FAULT_SCENARIO, 'faults'),
    kubeconfigPath: kubeconfig,
    log,
  });
  let replicas: Replicas | undefined;
  try {
    await cluster.kc.makeApiClient(k8s.CustomObjectsApi).createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: POLICY_PLURAL,
      body: POLICY,
    });
    replicas = await startReplicas({
      kubeconfig,
      n: 2,
      console: true,
      // a loaded machine (CI's two cores beside the other phases) starts a replica slowly
      startTimeoutMs: 300_000,
      config: {
        controllers: { leaderElection: { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '500ms' } },
        instanceIds: { namespaces: ['*'] },
      },
    });
    log(`two Palisade replicas up; console and instance IDs at ${replicas.consoleUrl}`);
  } catch (e) {
    await replicas?.stop();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  const nodes = cluster.infra
    .list()
    .map((n) => n.name)
    .sort();
  const protectors = new ProtectorHistory(cluster.kc);
  await protectors.start();
  const pods = new PodTrail(cluster.kc);
  await pods.start();
  const rig: FaultRig = {
    cluster,
    replicas,
    protectors,
    pods,
    nodes,
    down: new Set(),
    async stop() {
      protectors.stop();
      pods.stop();
      await rig.replicas.stop();
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  const first = await untilLive(rig, 300_000);
  if (!first.ok) {
    await rig.stop();
    throw new Error(`the fault run's cluster never became healthy: ${first.why}`);
  }
  return rig;
}

export interface SeedOptions {
  /** incidents start within this window (default 30 s) */
  windowMs?: number;
  /** how long after the last heal every pod must be Ready again (default 180 s) */
  livenessBoundMs?: number;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSeed(rig: FaultRig, seed: number, o: SeedOptions = {}): Promise<SeedResult> {
  const schedule = generateSchedule(seed, {
    nodes: rig.nodes,
    replicas: rig.replicas.replicas.length,
    windowMs: o.windowMs ?? 30_000,
    durationMs: { min: 2_000, max: 15_000 },
  });
  const t0 = Date.now();
  const lines: string[] = [];
  const note = (line: string) => {
    const l = `+${((Date.now() - t0) / 1000).toFixed(1)}s ${line}`;
    lines.push(l);
    o.log?.(`[seed ${seed}] ${l}`);
  };
  for (const i of schedule.incidents) note(`planned: ${describeIncident(i)}`);
  const before = violationsNow(rig).length;
  /** nodes in an incident now */
  const faulted = new Set<string>();
  // a violation's evidence, read the moment it is seen: who did what to the pod, and its node
  const evidence: Promise<void>[] = [];
  const onViolation = (e: { type: string; violation?: Violation }) => {
    if (e.type === 'violation' && e.violation) evidence.push(explain(rig, e.violation, note, t0));
  };
  rig.cluster.infra.truth.on('event', onViolation);
  try {
    await Promise.all(schedule.incidents.map((i) => carryOut(rig, i, t0, faulted, note)));
  } finally {
    rig.cluster.infra.truth.off('event', onViolation);
  }
  await Promise.all(evidence);
  await sleep(Math.max(0, t0 + schedule.endMs - Date.now()));
  // the last heal: every node whole again, every replica up
  for (const n of rig.nodes) restore(rig, n);
  await Promise.all([...rig.down].map((r) => restartReplica(rig, r, note)));
  const healedAt = Date.now();
  note('everything healed');
  const live = await untilLive(rig, o.livenessBoundMs ?? 180_000);
  const liveMs = live.ok ? Date.now() - healedAt : undefined;
  note(live.ok ? `every pod Ready again after ${(liveMs! / 1000).toFixed(1)} s` : `NOT live: ${live.why}`);
  // a violation still open at the end is one too: let the checker judge the last changes first
  rig.cluster.checker.evaluate();
  const violations = violationsNow(rig).slice(before);
  for (const v of violations) note(`VIOLATION ${v.invariant}: ${v.message}`);
  return {
    seed,
    schedule,
    violations,
    ...(live.ok ? { liveMs } : { notLive: live.why }),
    log: lines,
    durationMs: Date.now() - t0,
  };
}

/** What the API says about a violation's pods when it is seen: their Events and their nodes. */
async function explain(rig: FaultRig, v: Violation, note: (l: string) => void, since: number) {
  note(`violation seen: ${v.invariant}: ${v.message}`);
  const core = rig.cluster.kc.makeApiClient(k8s.CoreV1Api);
  const pods = new Set<string>(v.evidence.map((p) => `${p.namespace}/${p.podName}`));
  for (const m of v.message.matchAll(/pod ([a-z0-9-]+\/[a-z0-9.-]+)/g)) pods.add(m[1]);
  try {
    for (const key of pods) {
      const [namespace, name] = key.split('/');
      const events = await core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.name=${name}`,
      });
      // this seed's only (the rig's earlier seeds had pods of the same names), oldest first
      const at = (e: k8s.CoreV1Event) =>
        new Date(e.eventTime ?? e.lastTimestamp ?? e.firstTimestamp ?? 0).getTime();
      const mine = events.items.filter((e) => at(e) >= since - 1000).sort((a, b) => at(a) - at(b));
      for (const e of mine.slice(-20))
        note(
          `  event ${key} at +${((at(e) - since) / 1000).toFixed(1)}s: ${e.reason} (${e.source?.component ?? e.reportingComponent ?? '?'}${e.source?.host ? ` on ${e.source.host}` : ''}): ${e.message}`,
        );
      const pod = await core.readNamespacedPod({ namespace, name }).catch(() => undefined);
      const node = pod?.spec?.nodeName;
      note(
        `  pod ${key}: ${pod ? `on ${node}, ${pod.metadata?.deletionTimestamp ? 'Terminating' : pod.status?.phase}` : 'gone'}`,
      );
    }
    const uids = [...new Set(v.evidence.map((p) => p.podUid).filter((u): u is string => !!u))];
    for (const step of rig.pods.of(uids, since)) note(`  pod ${step}`);
    if (v.invariant === PROTECTION_INVARIANT) {
      note(`  ${rig.protectors.admissionOf(v.message)}`);
      note(`  ${rig.protectors.leadersBefore(v.since, 60_000)}`);
    }
    const nodes = (await core.listNode()).items.map(
      (n) =>
        `${n.metadata?.name}=${n.status?.conditions?.find((c) => c.type === 'Ready')?.status}${(n.spec?.taints ?? []).map((t) => `+${t.key.replace('node.kubernetes.io/', '')}`).join('')}`,
    );
    note(`  nodes: ${nodes.join(' ')}`);
    note(
      `  infra: ${
        rig.cluster.infra
          .list()
          .filter((n) => n.partitioned || n.power === 'off' || n.kubelet !== 'running')
          .map((n) => `${n.name}(${n.partitioned ? 'partitioned ' : ''}${n.power} kubelet ${n.kubelet})`)
          .join(' ') || 'all whole'
      }; replicas down: ${[...rig.down].join(', ') || 'none'}`,
    );
  } catch (e) {
    note(`  (evidence could not be read: ${(e as Error).message})`);
  }
}

type Seen = { rv: number; at: number; protector: PodProtector };
const HISTORY = 200;

/**
 * The last PodProtector versions written (a watch, each version with the time it arrived), so
 * that a protected-workload-above-floor violation says what the webhook judged on: Palisade
 * books an admitted deletion of an available pod in the protector's status (a bucket naming
 * the pod) before it answers, beside the aggregated counts it judged against. No such
 * bucket: the pod was admitted without quota (judged not available, or forced).
 */
export class ProtectorHistory {
  private readonly seen: Seen[] = [];
  /** the controller Lease's holder changes (the leader runs the aggregators), newest last */
  private readonly leaders: { at: number; holder: string }[] = [];
  /** when each renewal of the controller Lease arrived */
  private readonly renewals: number[] = [];
  private abort: AbortController | undefined;
  private leaseAbort: AbortController | undefined;
  private stopped = false;

  constructor(private readonly kc: k8s.KubeConfig) {}

  async start() {
    await Promise.all([this.watchProtectors(), this.watchLeader()]);
  }

  private async watchLeader() {
    if (this.stopped) return;
    const { namespace, name } = DEFAULT_LEADER_ELECTION;
    const again = () => setTimeout(() => void this.watchLeader().catch(() => undefined), 500);
    this.leaseAbort = await new k8s.Watch(this.kc)
      .watch(
        `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
        { fieldSelector: `metadata.name=${name}` },
        (_type, lease: k8s.V1Lease) => {
          const holder = lease.spec?.holderIdentity ?? '';
          this.renewals.push(Date.now());
          if (this.renewals.length > 10 * HISTORY) this.renewals.shift();
          if (this.leaders.at(-1)?.holder === holder) return;
          this.leaders.push({ at: Date.now(), holder });
          if (this.leaders.length > HISTORY) this.leaders.shift();
        },
        again,
      )
      .catch(() => {
        again();
        return undefined;
      });
  }

  /** Holder changes of the controller Lease within `ms` before `at`. */
  leadersBefore(at: number, ms: number): string {
    const changes = this.leaders.filter((l) => l.at <= at && l.at > at - ms);
    const t = (x: number) => new Date(x).toISOString().slice(11, 23);
    const seen = this.renewals.filter((r) => r <= at && r > at - ms);
    let gap = 0;
    for (let i = 1; i < seen.length; i++) gap = Math.max(gap, seen[i] - seen[i - 1]);
    return `leader changes in the ${ms / 1000} s before: ${changes.length ? changes.map((l) => `${t(l.at)} ${l.holder || '(none)'}`).join(', ') : 'none'}; Lease writes ${seen.length}, longest gap ${(gap / 1000).toFixed(1)} s`;
  }

  private async watchProtectors() {
    if (this.stopped) return;
    const path = `/apis/${PROTECTION_GROUP}/${PROTECTION_VERSION}/${PROTECTOR_PLURAL}`;
    this.abort = await new k8s.Watch(this.kc)
      .watch(
        path,
        {},
        (type, obj: PodProtector) => {
          if (type !== 'ADDED' && type !== 'MODIFIED') return;
          this.seen.push({ rv: Number(obj.metadata?.resourceVersion), at: Date.now(), protector: obj });
          if (this.seen.length > HISTORY) this.seen.shift();
        },
        () => setTimeout(() => void this.watchProtectors().catch(() => undefined), 500),
      )
      .catch(() => {
        setTimeout(() => void this.watchProtectors().catch(() => undefined), 500);
        return undefined;
      });
  }

  stop() {
    this.stopped = true;
    this.abort?.abort();
    this.leaseAbort?.abort();
  }

  /** "deleting pod NS/POD left … of PodProtector NS/NAME": the webhook's booking of that deletion. */
  admissionOf(message: string): string {
    const m = /deleting pod ([^/\s]+)\/(\S+) left .* PodProtector [^/\s]+\/(\S+)$/.exec(message);
    if (!m) return 'admission: (message not understood)';
    const [, ns, pod, name] = m;
    const versions = this.seen.filter(
      (s) => s.protector.metadata.namespace === ns && s.protector.metadata.name === name,
    );
    const i = versions.findIndex((s) =>
      (s.protector.status?.cells ?? []).some((c) =>
        (c.admissionHistory?.buckets ?? []).some((b) => b.podName === pod),
      ),
    );
    const counts = (s: Seen) =>
      (s.protector.status?.cells ?? [])
        .map(
          (c) =>
            `${c.cellID}: available ${c.aggregation.availableReplicas}/${c.aggregation.totalReplicas}, ${(c.admissionHistory?.buckets ?? []).length} bucket(s), aggregated up to ${c.aggregation.lastEventTime ?? '-'}`,
        )
        .join('; ');
    if (i < 0)
      return `admission: no booking of ${pod} in the last ${versions.length} version(s) of ${ns}/${name}: admitted without quota (judged not available, already terminating, or forced)`;
    const booked = versions[i];
    const before = versions[i - 1];
    return `admission: ${pod} booked in ${ns}/${name} rv ${booked.rv} at ${new Date(booked.at).toISOString().slice(11, 23)} (${counts(booked)})${before ? `; the version before, rv ${before.rv}: ${counts(before)}` : ''}`;
  }
}

function violationsNow(rig: FaultRig): Violation[] {
  return [...rig.cluster.checker.list(), ...rig.cluster.protection.list()].sort((a, b) => a.id - b.id);
}

async function carryOut(
  rig: FaultRig,
  i: Incident,
  t0: number,
  faulted: Set<string>,
  note: (l: string) => void,
): Promise<void> {
  await sleep(Math.max(0, t0 + i.atMs - Date.now()));
  const infra = rig.cluster.infra;
  if (i.kind === 'replica') {
    // one replica always answers: one still starting after its own kill (slowly, on a loaded
    // machine) leaves the other alone
    if (rig.down.size)
      return note(`replica ${i.replica} not killed: replica ${[...rig.down].join(', ')} is down`);
    rig.down.add(i.replica);
    rig.replicas.replicas[i.replica].signal('SIGKILL');
    note(`replica ${i.replica} killed (SIGKILL)`);
    await sleep(i.forMs);
    await restartReplica(rig, i.replica, note);
    return;
  }
  const nodes = i.nodes.filter((n) => !faulted.has(n));
  if (!nodes.length) return;
  for (const n of nodes) faulted.add(n);
  try {
    for (const n of nodes) {
      if (i.kind === 'partition') infra.partition(n);
      else if (i.kind === 'power') infra.powerOff(n);
      else if (infra.node(n).power === 'on' && infra.node(n).kubelet === 'running') infra.kubeletCrash(n);
    }
    note(
      `${i.kind === 'partition' ? 'partitioned' : i.kind === 'power' ? 'powered off' : 'kubelet crashed on'} ${nodes.join(', ')}`,
    );
    if (i.kind === 'partition' && i.healMidFence) {
      const fenced = await midFence(rig, nodes, Math.max(i.forMs, 30_000));
      note(fenced ? `NodeFence of ${fenced} under way: healing now` : 'no fence under way in time: healing');
    } else await sleep(i.forMs);
    for (const n of nodes) restore(rig, n);
    note(`restored ${nodes.join(', ')}`);
  } finally {
    for (const n of nodes) faulted.delete(n);
  }
}

/** Wait until one of the nodes' NodeFence is Detected, AwaitingApproval or Fencing (then: its node). */
async function midFence(rig: FaultRig, nodes: string[], timeoutMs: number): Promise<string | undefined> {
  const custom = rig.cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    for (const name of nodes) {
      const f = (await custom
        .getClusterCustomObject({ group: GROUP, version: VERSION, plural: FENCE_PLURAL, name })
        .catch(() => undefined)) as { status?: { phase?: string } } | undefined;
      if (['Detected', 'AwaitingApproval', 'Fencing'].includes(f?.status?.phase ?? '')) return name;
    }
    await sleep(200);
  }
  return undefined;
}

/** The node whole again: reconnected, powered on, its kubelet running. */
function restore(rig: FaultRig, node: string) {
  const infra = rig.cluster.infra;
  const n = infra.node(node);
  if (n.partitioned) infra.heal(node);
  if (n.power === 'off') infra.powerOn(node);
  else if (n.kubelet !== 'running') infra.kubeletRestart(node);
}

async function restartReplica(rig: FaultRig, index: number, note: (l: string) => void) {
  if (!rig.down.has(index)) return;
  await rig.replicas.restart(index);
  rig.down.delete(index);
  note(`replica ${index} started again`);
}

/**
 * Liveness: every node Ready, every workload of the scenario with all its replicas Ready and no
 * pod Terminating, and every running pod of a workload taking instance IDs holding one.
 */
export async function untilLive(
  rig: FaultRig,
  boundMs: number,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const core = rig.cluster.kc.makeApiClient(k8s.CoreV1Api);
  const apps = rig.cluster.kc.makeApiClient(k8s.AppsV1Api);
  const until = Date.now() + boundMs;
  let why = 'not checked yet';
  for (;;) {
    why = await notLive(rig, core, apps).catch((e) => `the API could not be read: ${(e as Error).message}`);
    if (!why) return { ok: true };
    if (Date.now() > until) return { ok: false, why };
    await sleep(1_000);
  }
}

async function notLive(rig: FaultRig, core: k8s.CoreV1Api, apps: k8s.AppsV1Api): Promise<string> {
  const nodes = (await core.listNode()).items;
  const notReady = nodes.filter(
    (n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True',
  );
  if (notReady.length) return `nodes not Ready: ${notReady.map((n) => n.metadata?.name).join(', ')}`;
  const [deployments, statefulSets] = await Promise.all([
    apps.listDeploymentForAllNamespaces(),
    apps.listStatefulSetForAllNamespaces(),
  ]);
  const workloads = [...deployments.items, ...statefulSets.items].filter((w) =>
    ['shop', 'monitoring'].includes(w.metadata?.namespace ?? ''),
  );
  for (const w of workloads) {
    const want = w.spec?.replicas ?? 1;
    if ((w.status?.readyReplicas ?? 0) !== want || (w.status?.replicas ?? 0) !== want)
      return `${w.metadata?.namespace}/${w.metadata?.name}: ${w.status?.readyReplicas ?? 0} of ${want} Ready`;
  }
  const pods = (await core.listPodForAllNamespaces()).items.filter((p) =>
    ['shop', 'monitoring'].includes(p.metadata?.namespace ?? ''),
  );
  const terminating = pods.filter((p) => p.metadata?.deletionTimestamp);
  if (terminating.length)
    return `pods still Terminating: ${terminating.map((p) => `${p.metadata?.namespace}/${p.metadata?.name} on ${p.spec?.nodeName}`).join(', ')}`;
  const idWorkloads = new Set(
    workloads
      .filter((w) => w.metadata?.labels?.[INSTANCE_IDS_LABEL] === 'true')
      .map((w) => `${w.metadata?.namespace}/${w.metadata?.name}`),
  );
  const running = rig.cluster.infra.truth.running();
  const without = running.filter(
    (p) =>
      !p.instanceId &&
      [...idWorkloads].some((w) => {
        const [ns, name] = w.split('/');
        return p.namespace === ns && p.podName.startsWith(`${name}-`);
      }),
  );
  if (without.length)
    return `pods taking instance IDs without one: ${without.map((p) => `${p.namespace}/${p.podName} on ${p.node}`).join(', ')}`;
  return '';
}

/** One line per seed, for logs and bench/RESULTS.md. */
export function seedSummary(r: SeedResult): string {
  const incidents = r.schedule.incidents.map(describeIncident).join('; ');
  const live =
    r.liveMs !== undefined ? `Ready again in ${(r.liveMs / 1000).toFixed(1)} s` : `NOT live (${r.notLive})`;
  return `seed ${r.seed}: ${r.violations.length} violation(s), ${live}, ${(r.durationMs / 1000).toFixed(0)} s — ${incidents}`;
}
