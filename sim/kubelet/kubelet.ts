// One simulated kubelet. It reaches the API server only as a client and only while the
// infrastructure says it can; what it knows of its pods is what it last saw while
// connected. It starts pods once their volumes are attached, reports Running and
// Ready, and terminates pods as seed 003 describes: preStop, SIGTERM, the grace
// period, SIGKILL, a status report, then the final delete with grace 0 and a uid
// precondition. Its memory dies with it: after a crash, a termination starts over.
import type * as k8s from '@kubernetes/client-node';
import {
  ANN_PRESTOP_MS,
  ANN_READY_AFTER_MS,
  ANN_SIGTERM_EXIT_MS,
  CSI_DRIVER,
  LABEL_HOSTNAME,
  LABEL_POD_INDEX,
  LABEL_RACK,
  LABEL_ZONE,
  ANN_CONTROLLER_MANAGED_ATTACH,
  attachmentName,
  volumeHandleOf,
  controllerOf,
  isTerminal,
  uniqueVolumeName,
} from '../controllers/runtime/conventions.js';
import { type Taint, type Toleration, untoleratedTaint } from '../../lib/kube/tolerations.js';
import { INSTANCE_IDS_URL_ENV } from '../../lib/instanceIds/types.js';
import type { AccessMode, Process, ProcessVolume, TerminationStep } from '../infra/groundTruth.js';
import type { KubeletFleet } from './fleet.js';
import { micro, pendingStatus, rfc3339, runningStatus, terminatedStatus } from './podStatus.js';
import { codeOf, isConflict, isNotFound } from '../../lib/kube/errorText.js';

export interface NodeSpec {
  name: string;
  zone: string;
  rack: string;
  cpu: string;
  memory: string;
  pods: number;
  ip: string;
  labels?: Record<string, string>;
}

/** while a pod waits for the node status to report its volumes in use */
const IN_USE_RECHECK_MS = 100;

interface PodWork {
  startAt?: number;
  readyAt?: number;
  ready?: boolean;
  term?: Termination;
  /** pod gone from the API while its process still ran: killed as an orphan */
  orphanKillAt?: number;
  /** volumes to report in use before the pod's process starts (and mounts them) */
  inUse?: string[];
  /** the container's environment, resolved once before it starts */
  env?: Record<string, string>;
  /** refused at admission (reported Failed): never started */
  rejected?: boolean;
}

interface Termination {
  observedAt: number;
  deadline: number;
  stage: 'prestop' | 'sigterm' | 'report' | 'done';
  preStopEnd?: number;
  killAt?: number;
}

const MIN_KILL_GRACE_MS = 2_000;

export class SimKubelet {
  private alive = false;
  private readonly known = new Map<string, k8s.V1Pod>();
  private readonly work = new Map<string, PodWork>();
  /** pods this kubelet finished (deleted with grace 0) whose DELETED event has not arrived yet */
  private readonly finished = new Set<string>();
  private podIpSeq = 1;
  /** when the next Lease renewal is due */
  private leaseDueAt: number | undefined;

  constructor(
    readonly spec: NodeSpec,
    private readonly fleet: KubeletFleet,
  ) {}

  private get name() {
    return this.spec.name;
  }

  private get d() {
    return this.fleet.durations;
  }

  private reachable(): boolean {
    return this.alive && this.fleet.infra.reachable(this.name);
  }

  private key(kind: string, arg = '') {
    return `${this.name}|${kind}|${arg}`;
  }

  /** Heartbeats have a lane of their own: pod work, however much, must not delay them. */
  private laneFor(kind: string) {
    if (kind === 'pod') return this.fleet.queue;
    return kind === 'lease' ? this.fleet.leases : this.fleet.heartbeats;
  }

  private add(kind: string, arg = '') {
    if (this.alive) this.laneFor(kind).add(this.key(kind, arg));
  }

  boot() {
    this.alive = true;
    this.add('register');
  }

  halt() {
    this.alive = false;
  }

  /** The network came back: relist what the API says about our pods. */
  resync() {
    if (!this.reachable()) return;
    const current = new Map(this.fleet.podsOn(this.name).map((p) => [p.metadata!.uid!, p]));
    for (const uid of new Set([...this.known.keys(), ...current.keys()])) {
      const p = current.get(uid);
      if (p) this.known.set(uid, p);
      else this.known.delete(uid);
      this.enqueuePod(uid);
    }
    for (const proc of this.fleet.infra.truth.running(this.name)) this.enqueuePod(proc.podUid);
    this.add('lease');
    this.add('status');
  }

  podEvent(uid: string) {
    if (!this.reachable()) return; // a partitioned kubelet learns nothing
    const p = this.fleet.pod(uid);
    if (p && p.spec?.nodeName === this.name) this.known.set(uid, p);
    else this.known.delete(uid);
    this.enqueuePod(uid);
  }

  /** Volumes changed (attached, bound): pods still waiting for theirs look again. Returns how many. */
  volumesChanged(): number {
    let waiting = 0;
    for (const [uid, w] of this.work)
      if (w.startAt === undefined && !w.term) {
        waiting++;
        if (this.reachable()) this.enqueuePod(uid);
      }
    return waiting;
  }

  enqueuePod(uid: string) {
    this.add('pod', uid);
  }

  private later(kind: string, arg: string, ms: number) {
    if (this.alive) this.laneFor(kind).addAfter(this.key(kind, arg), Math.max(0, ms));
  }

  async handle(kind: string, arg: string) {
    if (!this.alive) return;
    if (kind === 'register') return this.register();
    if (kind === 'lease') return this.renewLease();
    if (kind === 'status') return this.postStatus();
    if (kind === 'pod') return this.syncPod(arg);
  }

  // ---- node registration, lease and status ---------------------------------------------

  private async register() {
    if (!this.reachable()) return this.later('register', '', 1_000);
    const s = this.spec;
    const labels = {
      'kubernetes.io/arch': 'amd64',
      [LABEL_HOSTNAME]: s.name,
      [LABEL_ZONE]: s.zone,
      [LABEL_RACK]: s.rack,
      'kubernetes.io/os': 'linux',
      ...(s.labels ?? {}),
    };
    const capacity = { cpu: s.cpu, memory: s.memory, pods: String(s.pods) };
    try {
      await this.fleet.heartbeatApi.post('/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        // as a real kubelet registers: the attach/detach controller manages this node's volumes
        metadata: { name: s.name, labels, annotations: { [ANN_CONTROLLER_MANAGED_ATTACH]: 'true' } },
        spec: {},
        status: { capacity, allocatable: capacity },
      });
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
    // a fresh kubelet knows nothing: start from what the API says now
    this.resync();
  }

  private async renewLease() {
    this.scheduleRenewal();
    if (!this.reachable()) return;
    const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    const body = {
      spec: {
        holderIdentity: this.name,
        leaseDurationSeconds: Math.round(this.d.leaseDurationMs / 1000),
        renewTime: micro(),
      },
    };
    try {
      await this.fleet.heartbeatApi.patch(`${leases}/${encodeURIComponent(this.name)}`, body);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await this.fleet.heartbeatApi.post(leases, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: 'kube-node-lease' },
        ...body,
      });
    }
  }

  /**
   * Every interval from when the renewal was due, not from when the shared lane got to it:
   * a real kubelet's own loop is not held up by a thousand other nodes' work. The first
   * renewal, an early one (after a reconnect) or one late by an interval starts anew.
   */
  private scheduleRenewal() {
    const now = Date.now();
    const every = this.d.leaseRenewIntervalMs;
    const late = this.leaseDueAt === undefined ? -1 : now - this.leaseDueAt;
    const due = late >= 0 && late < every ? this.leaseDueAt! : now;
    this.leaseDueAt = due + every;
    this.later('lease', '', this.leaseDueAt - now);
  }

  private async postStatus() {
    this.later('status', '', this.d.nodeStatusUpdateMs);
    if (!this.reachable()) return;
    const now = rfc3339();
    const node = this.fleet.informers.nodes.get(this.name);
    const since = (type: string, status: string) => {
      const c = node?.status?.conditions?.find((x) => x.type === type);
      return c?.status === status && c.lastTransitionTime
        ? rfc3339(new Date(c.lastTransitionTime as unknown as string).getTime())
        : now;
    };
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: since(type, status),
    });
    const inUse = this.volumesInUse();
    const status = {
      conditions: [
        condition(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: this.spec.ip },
        { type: 'Hostname', address: this.name },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.30.0-palisade.sim',
        kubeProxyVersion: 'v1.30.0-palisade.sim',
        operatingSystem: 'linux',
        architecture: 'amd64',
        containerRuntimeVersion: 'sim://1.0',
        osImage: 'Palisade simulated node',
        kernelVersion: 'sim',
        machineID: this.name,
        systemUUID: this.name,
        // the machine's boot, not the kubelet's start: a kubelet restart keeps its containers
        bootID: `boot-${this.fleet.infra.node(this.name).powerChangedAt}`,
      },
      volumesInUse: inUse.length ? inUse : null,
    };
    await this.fleet.heartbeatApi.patch(`/api/v1/nodes/${encodeURIComponent(this.name)}/status`, { status });
  }

  /** Volumes in use on this node: those of processes still running here, or about to start. */
  private volumesInUse(): string[] {
    const pvs = new Set<string>();
    for (const p of this.fleet.infra.truth.running(this.name))
      for (const v of p.volumes) pvs.add(uniqueVolumeName(v.pv));
    for (const w of this.work.values()) if (!w.term) for (const v of w.inUse ?? []) pvs.add(v);
    return [...pvs].sort();
  }

  /** Does the node object not list all of these volumes in use yet? */
  private unreported(volumes: string[]): boolean {
    const listed = this.fleet.informers.nodes.get(this.name)?.status?.volumesInUse ?? [];
    return volumes.some((v) => !listed.includes(v));
  }

  // ---- pods ----------------------------------------------------------------------------

  private async syncPod(uid: string) {
    const pod = this.known.get(uid);
    if (this.finished.has(uid)) {
      // late events about a pod we already removed must not start its termination again
      if (!pod) this.finished.delete(uid);
      return;
    }
    const proc = this.fleet.infra.truth.forPod(uid);
    if (!pod) return this.killOrphan(uid, proc);
    if (pod.metadata?.deletionTimestamp) return this.terminate(pod, proc);
    if (isTerminal(pod)) return;
    return this.run(pod, proc);
  }

  private workFor(uid: string): PodWork {
    let w = this.work.get(uid);
    if (!w) this.work.set(uid, (w = {}));
    return w;
  }

  private async run(pod: k8s.V1Pod, proc: Process | undefined) {
    const uid = pod.metadata!.uid!;
    const w = this.workFor(uid);
    const now = Date.now();
    if (!proc) {
      if (w.startAt === undefined) {
        // as a real kubelet's admission: a pod that does not tolerate a NoExecute taint of the
        // node (the out-of-service taint of a fenced node powered on again) is rejected, not run
        const taint = untoleratedTaint(this.nodeTaints(), pod.spec?.tolerations as Toleration[], [
          'NoExecute',
        ]);
        if (w.rejected) return;
        if (taint) return this.reject(pod, 'TaintToleration', 'Predicate TaintToleration failed');
        const volumes = this.volumeState(pod);
        if (volumes.waiting) {
          this.fleet.waitingForVolumes(this.name);
          await this.report(pod, pendingStatus(pod, 'ContainerCreating', volumes.waiting));
          return this.later('pod', uid, 1_000);
        }
        // as a real kubelet: the environment is resolved before the container is created;
        // a ConfigMap it needs that is missing holds the pod in CreateContainerConfigError
        if (!w.env) {
          const env = await this.resolveEnv(pod);
          if ('waiting' in env) {
            await this.report(pod, pendingStatus(pod, 'CreateContainerConfigError', env.waiting));
            return this.later('pod', uid, 1_000);
          }
          w.env = env.values;
        }
        // as a real kubelet: a volume is mounted only once the node status reports it in
        // use, so the attach/detach controller never takes it for unmounted while written
        w.inUse = this.processVolumes(pod).map((v) => uniqueVolumeName(v.pv));
        if (this.unreported(w.inUse)) {
          this.add('status');
          return this.later('pod', uid, IN_USE_RECHECK_MS);
        }
        w.startAt = now + this.d.containerStartMs;
      }
      if (now < w.startAt) return this.later('pod', uid, w.startAt - now);
      proc = this.fleet.infra.startProcess(this.processFor(pod));
      w.inUse = undefined; // the running process holds them now
      const url = w.env?.[INSTANCE_IDS_URL_ENV];
      if (url) this.fleet.apps.started(pod, proc, url);
    }
    // a process already running (kubelet restart) is adopted as it is
    w.readyAt ??= proc.startedAt + readyDelay(pod, this.d.podReadyDelayMs);
    const ready = now >= w.readyAt;
    if (!ready) this.later('pod', uid, w.readyAt - now);
    // compared with the API's Ready too, as the real kubelet's status manager does: the node
    // lifecycle controller sets Ready=False on an unreachable node's pods, and after a heal
    // the kubelet must write Ready=True again though its own memory never changed
    const apiReady = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (w.ready === ready && apiReady === ready && pod.status?.phase === 'Running') return;
    w.ready = ready;
    await this.report(pod, runningStatus(pod, proc.startedAt, ready, this.podIp(uid), this.spec.ip));
  }

  private nodeTaints(): Taint[] {
    return (this.fleet.informers.nodes.get(this.name)?.spec?.taints ?? []) as Taint[];
  }

  /** The kubelet's rejectPod: phase Failed with the reason, and a Warning Event; it never starts. */
  private async reject(pod: k8s.V1Pod, reason: string, message: string) {
    if (!this.reachable()) return this.later('pod', pod.metadata!.uid!, 1_000);
    await this.report(pod, { phase: 'Failed', reason, message: `Pod was rejected: ${message}` });
    this.workFor(pod.metadata!.uid!).rejected = true;
    void this.fleet.events.record(
      'kubelet',
      { kind: 'Pod', apiVersion: 'v1', metadata: pod.metadata },
      'Warning',
      reason,
      message,
    );
  }

  private podIp(uid: string): string {
    const w = this.workFor(uid) as PodWork & { ip?: string };
    w.ip ??= `100.64.${this.spec.ip.split('.').pop() ?? '0'}.${(this.podIpSeq++ % 250) + 1}`;
    return w.ip;
  }

  private processFor(pod: k8s.V1Pod): Omit<Process, 'id' | 'startedAt'> {
    const owner = controllerOf(pod);
    const index = pod.metadata?.labels?.[LABEL_POD_INDEX] ?? pod.metadata?.name?.split('-').pop();
    const identity =
      owner?.kind === 'StatefulSet' ? `${pod.metadata?.namespace}/${owner.name}/${index}` : undefined;
    const exit = pod.metadata?.annotations?.[ANN_SIGTERM_EXIT_MS];
    return {
      node: this.name,
      podUid: pod.metadata!.uid!,
      podName: pod.metadata!.name!,
      namespace: pod.metadata!.namespace!,
      identity,
      owner: owner ? { kind: owner.kind, name: owner.name } : undefined,
      volumes: this.processVolumes(pod),
      sigtermExitMs: exit === 'never' ? null : Number(exit ?? 500),
    };
  }

  /**
   * The first container's environment: literal values, the pod's own name and namespace
   * (fieldRef), and ConfigMap keys read live; other sources are left out. A ConfigMap or key
   * that is missing and not optional is the real kubelet's CreateContainerConfigError.
   */
  private async resolveEnv(
    pod: k8s.V1Pod,
  ): Promise<{ values: Record<string, string> } | { waiting: string }> {
    const values: Record<string, string> = {};
    const ns = pod.metadata?.namespace ?? '';
    for (const e of pod.spec?.containers?.[0]?.env ?? []) {
      if (e.value !== undefined) values[e.name] = e.value;
      else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name')
        values[e.name] = pod.metadata?.name ?? '';
      else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') values[e.name] = ns;
      else if (e.valueFrom?.configMapKeyRef) {
        const ref = e.valueFrom.configMapKeyRef;
        let data: Record<string, string> | undefined;
        try {
          data =
            (await this.fleet.clients.core.readNamespacedConfigMap({ namespace: ns, name: ref.name! }))
              .data ?? {};
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        if (!data) {
          if (ref.optional) continue;
          return { waiting: `configmap "${ref.name}" not found` };
        }
        if (data[ref.key] === undefined) {
          if (ref.optional) continue;
          return { waiting: `couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}` };
        }
        values[e.name] = data[ref.key];
      }
    }
    return { values };
  }

  private pvFor(pod: k8s.V1Pod, claim: string): k8s.V1PersistentVolume | undefined {
    const pvc = this.fleet.informers.pvcs.get(claim, pod.metadata?.namespace);
    return pvc?.spec?.volumeName ? this.fleet.informers.pvs.get(pvc.spec.volumeName) : undefined;
  }

  private processVolumes(pod: k8s.V1Pod): ProcessVolume[] {
    const out: ProcessVolume[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      if (!v.persistentVolumeClaim) continue;
      const pv = this.pvFor(pod, v.persistentVolumeClaim.claimName);
      if (pv)
        out.push({
          pv: pv.metadata!.name!,
          accessMode: (pv.spec?.accessModes?.[0] ?? 'ReadWriteOnce') as AccessMode,
        });
    }
    return out;
  }

  /** Are the pod's volumes bound and (for CSI volumes) attached to this node? */
  private volumeState(pod: k8s.V1Pod): { waiting?: string } {
    for (const v of pod.spec?.volumes ?? []) {
      if (!v.persistentVolumeClaim) continue;
      const claim = v.persistentVolumeClaim.claimName;
      const pv = this.pvFor(pod, claim);
      if (!pv) return { waiting: `persistentvolumeclaim "${claim}" is not bound` };
      if (pv.spec?.csi?.driver !== CSI_DRIVER) continue;
      const va = this.fleet.informers.volumeAttachments.get(
        attachmentName(volumeHandleOf(pv, pv.metadata!.name!), this.name),
      );
      if (!va?.status?.attached)
        return { waiting: `waiting for volume "${pv.metadata!.name}" to be attached to ${this.name}` };
    }
    return {};
  }

  private async report(pod: k8s.V1Pod, status: object) {
    if (!this.reachable()) return;
    const { name, namespace } = pod.metadata as { name: string; namespace: string };
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/status`;
    await this.fleet.podApi.patch(path, { status });
  }

  // ---- termination (seed 003) -------------------------------------------------------------

  private step(pod: k8s.V1Pod, step: TerminationStep, detail?: string) {
    this.fleet.infra.truth.recordStep({
      podUid: pod.metadata!.uid!,
      podName: pod.metadata!.name!,
      namespace: pod.metadata!.namespace!,
      node: this.name,
      step,
      detail,
    });
  }

  private async terminate(pod: k8s.V1Pod, proc: Process | undefined) {
    const uid = pod.metadata!.uid!;
    const w = this.workFor(uid);
    const now = Date.now();
    if (!w.term) {
      const grace =
        (pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
      w.term = { observedAt: now, deadline: now + grace, stage: 'prestop' };
      this.step(pod, 'observed', `grace period ${grace / 1000}s`);
      const preStop = preStopMs(pod);
      if (proc && preStop > 0) {
        w.term.preStopEnd = now + preStop;
        this.step(pod, 'preStop-started', `${preStop / 1000}s`);
      }
    }
    const t = w.term;
    if (t.stage === 'prestop') {
      if (proc && t.preStopEnd !== undefined && now < Math.min(t.preStopEnd, t.deadline))
        return this.later('pod', uid, Math.min(t.preStopEnd, t.deadline) - now);
      if (proc && t.preStopEnd !== undefined)
        this.step(pod, now >= t.preStopEnd ? 'preStop-finished' : 'preStop-cut-short');
      if (proc) {
        this.fleet.infra.signal(proc.id, 'SIGTERM');
        this.step(pod, 'SIGTERM');
        void this.fleet.events.record(
          'kubelet',
          { kind: 'Pod', apiVersion: 'v1', metadata: pod.metadata },
          'Normal',
          'Killing',
          `Stopping container ${pod.spec?.containers?.[0]?.name ?? 'app'}`,
        );
      }
      // a preStop hook that used up the grace period earns the process 2 more seconds
      t.killAt = Math.max(
        t.deadline,
        now + (t.preStopEnd !== undefined && t.preStopEnd > t.deadline ? MIN_KILL_GRACE_MS : 0),
      );
      t.stage = 'sigterm';
    }
    if (t.stage === 'sigterm') {
      const live = this.fleet.infra.truth.forPod(uid);
      if (live && now < t.killAt!) return this.later('pod', uid, t.killAt! - now);
      if (live) {
        this.fleet.infra.signal(live.id, 'SIGKILL');
        this.step(pod, 'SIGKILL');
      } else if (proc || this.fleet.infra.truth.lastForPod(uid)?.stopReason === 'exited after SIGTERM') {
        this.step(pod, 'exited');
      }
      t.stage = 'report';
    }
    if (t.stage === 'report') return this.finish(pod, t);
  }

  private async finish(pod: k8s.V1Pod, t: Termination) {
    const uid = pod.metadata!.uid!;
    if (!this.reachable()) return this.later('pod', uid, 1_000);
    const last = this.fleet.infra.truth.lastForPod(uid);
    await this.report(
      pod,
      terminatedStatus(pod, last?.exitCode ?? 0, last?.startedAt, last?.stoppedAt ?? Date.now()),
    );
    this.step(pod, 'status-reported');
    try {
      await this.fleet.clients.core.deleteNamespacedPod({
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        body: { gracePeriodSeconds: 0, preconditions: { uid } },
      });
    } catch (e) {
      const code = codeOf(e);
      if (code !== 404 && code !== 409) throw e;
    }
    t.stage = 'done';
    this.step(pod, 'removed');
    this.work.delete(uid);
    this.finished.add(uid);
    this.add('status');
  }

  /** A process whose pod the API no longer has (e.g. force-deleted): stop it. */
  private async killOrphan(uid: string, proc: Process | undefined) {
    const w = this.work.get(uid);
    if (!proc) {
      this.work.delete(uid);
      if (w) this.add('status');
      return;
    }
    const now = Date.now();
    const ow = this.workFor(uid);
    if (ow.orphanKillAt === undefined) {
      ow.orphanKillAt = now + MIN_KILL_GRACE_MS;
      this.fleet.infra.signal(proc.id, 'SIGTERM');
    }
    if (now < ow.orphanKillAt) return this.later('pod', uid, ow.orphanKillAt - now);
    this.fleet.infra.signal(proc.id, 'SIGKILL');
  }
}

function readyDelay(pod: k8s.V1Pod, fallback: number): number {
  const v = Number(pod.metadata?.annotations?.[ANN_READY_AFTER_MS]);
  return Number.isFinite(v) && v >= 0 ? v : fallback;
}

function preStopMs(pod: k8s.V1Pod): number {
  const v = Number(pod.metadata?.annotations?.[ANN_PRESTOP_MS]);
  if (Number.isFinite(v) && v > 0) return v;
  // `sleep N` in an exec preStop hook, or the sleep action, as the usual way to write one
  const hook = pod.spec?.containers?.[0]?.lifecycle?.preStop;
  const seconds = hook?.sleep?.seconds ?? Number(hook?.exec?.command?.join(' ').match(/sleep\s+(\d+)/)?.[1]);
  return Number.isFinite(seconds) && seconds ? seconds * 1000 : 0;
}
