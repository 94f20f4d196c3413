// Acquire and release a pod's instance ID by compare-and-swap on its workload's annotation
// (seed 002), through the Kubernetes API with client-node: read the workload, decide
// (lib/instanceIds), write the new map with a merge patch that carries the resourceVersion
// that was read — so a write made meanwhile by anyone (another pod's request, another Palisade
// replica, the workload's controller, kubectl) makes ours a 409, and we read and decide again,
// after a jittered, growing wait, until a deadline. The live pods are listed (by the workload's
// selector) only when no id is free, and never taken from a cache. What the API server refuses
// (the 256 KiB annotation limit, an admission webhook) is passed on in its own words: the map
// is then exactly as it was.
import * as k8s from '@kubernetes/client-node';
import {
  type AcquireDecision,
  decideAcquire,
  decideCollect,
  decideRelease,
  type Entry,
  invalidMapMessage,
} from '../../lib/instanceIds/decide.js';
import {
  instanceCount,
  isLivePod,
  type Owner,
  type OwnerStep,
  podOwner,
  replicaSetOwner,
} from '../../lib/instanceIds/owner.js';
import {
  type AcquireAnswer,
  INSTANCE_IDS_ANNOTATION,
  type RefusalCode,
  type ReleaseAnswer,
  type WorkloadRef,
} from '../../lib/instanceIds/types.js';
import { errorText } from '../../lib/kube/errorText.js';
import { labelSelectorToString } from '../../lib/kube/labelSelector.js';
import { component, type Logger } from '../log.js';

export interface CasOptions {
  /** give up on 409s after this long (default 30 s) */
  deadlineMs?: number;
  /** the first wait's upper bound after a 409, doubled per conflict up to maxDelayMs (default 10, 500 ms) */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Requests for one workload arriving while its write is in flight join the next write (one
   * read, every decision in turn, one conditional write). false: one write per request, the
   * seed's protocol as it is (the race test's baseline).
   */
  batch?: boolean;
}

export type Refusal = { ok: false; status: number; code: RefusalCode; message: string; retries: number };
export type Outcome<T> = ({ ok: true } & T) | Refusal;

/** What a successful acquire also reports, for the log and the tests. */
export interface AcquireDetail {
  /** stale entries dropped to make room (pods gone, terminating or finished) */
  dropped: Entry[];
  /** entries at or above the replica count released by the write */
  released: Entry[];
}

export interface CasStats {
  acquired: number;
  released: number;
  /** conditional writes of a map that held */
  writes: number;
  /** conditional writes that lost the compare-and-swap (409 Conflict) */
  conflicts: number;
  /** live pod lists read because no id was free */
  liveReads: number;
  /** the most requests one write carried */
  largestBatch: number;
}

interface Workload {
  ref: WorkloadRef;
  uid?: string;
  resourceVersion?: string;
  annotation?: string;
  replicas: number;
  selector?: k8s.V1LabelSelector;
}

type AcquireOutcome = Outcome<AcquireAnswer & AcquireDetail>;
type ReleaseOutcome = Outcome<ReleaseAnswer>;

/** One pod's request, waiting for a write of its workload's map. */
type CollectOutcome = Outcome<{ workload: WorkloadRef; dropped: Entry[]; retries: number }>;

/** One pod's request (or the collector's sweep), waiting for a write of its workload's map. */
type Op = { pod: string; deadline: number; retries: number } & (
  | { kind: 'acquire'; done: (o: AcquireOutcome) => void }
  | { kind: 'release'; done: (o: ReleaseOutcome) => void }
  | { kind: 'collect'; done: (o: CollectOutcome) => void }
);

/** What one decision gave an op, before its write holds (retries are added then). */
type Result =
  | { ok: true; acquired: Omit<AcquireAnswer & AcquireDetail, 'retries'> }
  | { ok: true; released: Omit<ReleaseAnswer, 'retries'> }
  | { ok: true; collected: { workload: WorkloadRef; dropped: Entry[] } }
  | Omit<Refusal, 'retries'>;

interface Queue {
  namespace: string;
  owner: Owner;
  ops: Op[];
}

const refuse = (status: number, code: RefusalCode, message: string, retries = 0): Refusal => ({
  ok: false,
  status,
  code,
  message,
  retries,
});

const codeOf = (e: unknown) => (e instanceof k8s.ApiException ? e.code : undefined);

/** Which pod is asking: its name, and the uid its token is bound to (checked against the live pod). */
export interface PodIdentity {
  namespace: string;
  pod: string;
  uid?: string;
}

/** at most this many requests in one write (the map of a thousand pods is about 60 KiB) */
const MAX_BATCH = 1000;

export class InstanceIdCas {
  private readonly core: k8s.CoreV1Api;
  private readonly apps: k8s.AppsV1Api;
  private readonly batch: k8s.BatchV1Api;
  private readonly log: Logger;
  /** workload (with its uid) -> requests waiting for its next write */
  private readonly queues = new Map<string, Queue>();
  readonly stats: CasStats = {
    acquired: 0,
    released: 0,
    writes: 0,
    conflicts: 0,
    liveReads: 0,
    largestBatch: 0,
  };

  constructor(
    kc: k8s.KubeConfig,
    private readonly opts: CasOptions = {},
    logger?: Logger,
  ) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.apps = kc.makeApiClient(k8s.AppsV1Api);
    this.batch = kc.makeApiClient(k8s.BatchV1Api);
    this.log = logger ?? component('instance-ids');
  }

  async acquire(who: PodIdentity): Promise<AcquireOutcome> {
    const found = await this.podAndOwner(who, 'acquire');
    if (!found.ok) return found;
    const o = await new Promise<AcquireOutcome>((done) =>
      this.submit(who.namespace, found.owner, {
        kind: 'acquire',
        pod: who.pod,
        deadline: this.deadline(),
        retries: 0,
        done,
      }),
    );
    if (o.ok) {
      this.stats.acquired++;
      if (o.dropped.length || o.released.length)
        this.log.info(
          {
            workload: workloadName(o.workload),
            pod: who.pod,
            id: o.id,
            dropped: o.dropped,
            released: o.released,
          },
          'instance ID given after dropping stale or out-of-range entries',
        );
    }
    return o;
  }

  async release(who: PodIdentity): Promise<ReleaseOutcome> {
    const found = await this.podAndOwner(who, 'release');
    if (!found.ok) return found;
    const o = await new Promise<ReleaseOutcome>((done) =>
      this.submit(who.namespace, found.owner, {
        kind: 'release',
        pod: who.pod,
        deadline: this.deadline(),
        retries: 0,
        done,
      }),
    );
    if (o.ok && o.released !== null) this.stats.released++;
    return o;
  }

  /**
   * Drop the entries of pods that are gone, terminating or finished (the pods read live), in
   * the same conditional writes as the pods' own requests. The collector's sweep.
   */
  async collect(ref: WorkloadRef, uid?: string): Promise<CollectOutcome> {
    const owner: Owner = { kind: ref.kind, name: ref.name, ...(uid ? { uid } : {}) };
    return new Promise<CollectOutcome>((done) =>
      this.submit(ref.namespace, owner, {
        kind: 'collect',
        pod: '',
        deadline: this.deadline(),
        retries: 0,
        done,
      }),
    );
  }

  private deadline() {
    return Date.now() + (this.opts.deadlineMs ?? 30_000);
  }

  /** Join the workload's next write (or, with batching off, make one of its own). */
  private submit(namespace: string, owner: Owner, op: Op) {
    if (this.opts.batch === false) return void this.runSafely(namespace, owner, [op]);
    const key = `${namespace}/${owner.kind}/${owner.name}/${owner.uid ?? ''}`;
    const q = this.queues.get(key);
    if (q) return void q.ops.push(op);
    const queue: Queue = { namespace, owner, ops: [op] };
    this.queues.set(key, queue);
    void (async () => {
      while (queue.ops.length) await this.runSafely(namespace, owner, queue.ops.splice(0, MAX_BATCH));
      this.queues.delete(key);
    })();
  }

  /** run(), with every op answered even if something unforeseen throws (a request never hangs). */
  private async runSafely(namespace: string, owner: Owner, ops: Op[]) {
    try {
      await this.run(namespace, owner, ops);
    } catch (e) {
      this.log.error(
        { err: e, workload: `${namespace}/${owner.kind}/${owner.name}` },
        'instance-ID write failed',
      );
      this.finishAll(
        ops,
        this.clusterError(`deciding the map of ${owner.kind} ${namespace}/${owner.name}`, e),
      );
    }
  }

  /** The asking pod, read live, and the workload that carries its map. */
  private async podAndOwner(
    who: PodIdentity,
    what: 'acquire' | 'release',
  ): Promise<{ ok: true; owner: Owner } | Refusal> {
    let pod: k8s.V1Pod;
    try {
      pod = await this.core.readNamespacedPod({ namespace: who.namespace, name: who.pod });
    } catch (e) {
      if (codeOf(e) === 404)
        return refuse(404, 'pod_not_found', `pod ${who.namespace}/${who.pod} does not exist`);
      return this.clusterError(`reading pod ${who.namespace}/${who.pod}`, e);
    }
    if (who.uid && pod.metadata?.uid !== who.uid)
      return refuse(
        403,
        'not_this_pod',
        `pod ${who.namespace}/${who.pod} is another pod now (uid ${pod.metadata?.uid}; the token was bound to ${who.uid})`,
      );
    if (what === 'acquire' && !isLivePod(pod))
      return refuse(
        409,
        'pod_terminating',
        `pod ${who.namespace}/${who.pod} is ${pod.metadata?.deletionTimestamp ? 'terminating' : 'finished'}: it may not take an instance ID (its entry is dropped when the map is full)`,
      );
    let step: OwnerStep = podOwner(who.pod, pod.metadata?.ownerReferences);
    if (step.kind === 'replicaSet') {
      let rs: k8s.V1ReplicaSet;
      try {
        rs = await this.apps.readNamespacedReplicaSet({ namespace: who.namespace, name: step.name });
      } catch (e) {
        if (codeOf(e) === 404)
          return refuse(
            404,
            'workload_not_found',
            `ReplicaSet ${who.namespace}/${step.name} of pod ${who.pod} does not exist`,
          );
        return this.clusterError(`reading ReplicaSet ${who.namespace}/${step.name}`, e);
      }
      if (step.uid && rs.metadata?.uid !== step.uid)
        return refuse(
          404,
          'workload_not_found',
          `ReplicaSet ${who.namespace}/${step.name} of pod ${who.pod} was replaced`,
        );
      step = replicaSetOwner(step.name, rs.metadata?.ownerReferences);
    }
    if (step.kind === 'none') return refuse(422, 'no_workload', step.message);
    if (step.kind !== 'owner') throw new Error('a ReplicaSet was resolved above');
    return { ok: true, owner: step.owner };
  }

  /**
   * Read the workload, decide every op in turn on the evolving map, write it once, conditional
   * on the resourceVersion read; on 409 wait (full jitter, growing) and do it all again from a
   * new read, dropping the ops whose deadline the wait would pass.
   */
  private async run(namespace: string, owner: Owner, ops: Op[]): Promise<void> {
    this.stats.largestBatch = Math.max(this.stats.largestBatch, ops.length);
    const base = this.opts.baseDelayMs ?? 10;
    const max = this.opts.maxDelayMs ?? 500;
    const ref: WorkloadRef = { kind: owner.kind, namespace, name: owner.name };
    let pending = ops;
    for (let attempt = 0; ; attempt++) {
      const read = await this.readWorkload(ref);
      if (!read.ok) return this.finishAll(pending, read);
      const w = read.workload;
      if (owner.uid && w.uid !== owner.uid)
        return this.finishAll(
          pending,
          refuse(
            404,
            'workload_not_found',
            `${workloadName(ref)} was replaced (uid ${w.uid}, the pod's owner was ${owner.uid})`,
          ),
        );
      const { next, results } = await this.decideAll(w, pending);
      if (next === undefined) return this.finish(pending, results);
      try {
        await this.patch(w, next);
        this.stats.writes++;
        return this.finish(pending, results);
      } catch (e) {
        const code = codeOf(e);
        if (code === 404)
          return this.finishAll(pending, refuse(404, 'workload_not_found', `${workloadName(ref)} is gone`));
        if (code === 422 || code === 400 || code === 403) {
          // one request's entry may be what broke the write: each alone, then
          if (pending.length > 1) {
            for (const op of pending) await this.runSafely(namespace, owner, [op]);
            return;
          }
          return this.finishAll(
            pending,
            refuse(
              422,
              'rejected',
              `the API server refused the new instance-ID map of ${workloadName(ref)}: ${errorText(e)}`,
            ),
          );
        }
        if (code !== 409)
          return this.finishAll(pending, this.clusterError(`writing ${workloadName(ref)}`, e));
      }
      this.stats.conflicts++;
      for (const op of pending) op.retries++;
      const wait = Math.random() * Math.min(max, base * 2 ** Math.min(attempt, 16));
      const now = Date.now();
      const late = pending.filter((op) => now + wait > op.deadline);
      for (const op of late)
        this.finishAll(
          [op],
          refuse(
            503,
            'deadline',
            `${workloadName(ref)} kept changing: ${op.retries} writes lost the compare-and-swap (409 Conflict) in ${Math.round((this.opts.deadlineMs ?? 30_000) / 1000)} s; ask again`,
          ),
        );
      pending = pending.filter((op) => !late.includes(op));
      if (!pending.length) return;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Every op's decision on the map as the ops before it left it; `next`: the map to write, if it changed. */
  private async decideAll(w: Workload, ops: Op[]): Promise<{ next?: string; results: Result[] }> {
    let raw = w.annotation;
    let changed = false;
    let live: Promise<{ ok: true; names: Set<string> } | Refusal> | undefined;
    const results: Result[] = [];
    for (const op of ops) {
      if (op.kind === 'collect') {
        live ??= this.livePods(w);
        const l = await live;
        if (!l.ok) {
          results.push(l);
          continue;
        }
        const d = decideCollect({ raw, live: l.names });
        if (d.kind === 'invalid') {
          results.push(refuse(422, 'invalid_map', invalidMapMessage(w.ref, d.problems)));
          continue;
        }
        if (d.kind === 'collected') {
          raw = d.next;
          changed = true;
        }
        results.push({
          ok: true,
          collected: { workload: w.ref, dropped: d.kind === 'collected' ? d.dropped : [] },
        });
        continue;
      }
      if (op.kind === 'release') {
        const d = decideRelease({ raw, replicas: w.replicas, pod: op.pod });
        if (d.kind === 'invalid') {
          results.push(refuse(422, 'invalid_map', invalidMapMessage(w.ref, d.problems)));
          continue;
        }
        if (d.kind === 'released') {
          raw = d.next;
          changed = true;
        }
        results.push({
          ok: true,
          released: { released: d.kind === 'released' ? d.id : null, workload: w.ref },
        });
        continue;
      }
      let d: AcquireDecision = decideAcquire({ raw, replicas: w.replicas, pod: op.pod });
      if (d.kind === 'needLive') {
        // read once for all the ops of this attempt that need it
        live ??= this.livePods(w);
        const l = await live;
        if (!l.ok) {
          results.push(l);
          continue;
        }
        d = decideAcquire({ raw, replicas: w.replicas, pod: op.pod, live: l.names });
      }
      if (d.kind === 'invalid')
        results.push(refuse(422, 'invalid_map', invalidMapMessage(w.ref, d.problems)));
      else if (d.kind === 'full')
        results.push(refuse(409, 'no_free_id', `${workloadName(w.ref)}: ${d.message}`));
      else if (d.kind === 'needLive')
        throw new Error('the live pods were read: the decision cannot ask for them again');
      else {
        if (d.next !== undefined) {
          raw = d.next;
          changed = true;
        }
        results.push({
          ok: true,
          acquired: {
            id: d.id,
            replicas: w.replicas,
            workload: w.ref,
            dropped: d.kind === 'assigned' ? d.dropped : [],
            released: d.released,
          },
        });
      }
    }
    return { next: changed ? raw : undefined, results };
  }

  private finish(ops: Op[], results: Result[]) {
    for (const [i, op] of ops.entries()) {
      const r = results[i];
      if (!r.ok) this.finishAll([op], r);
      else if (op.kind === 'acquire' && 'acquired' in r)
        op.done({ ok: true, ...r.acquired, retries: op.retries });
      else if (op.kind === 'release' && 'released' in r)
        op.done({ ok: true, ...r.released, retries: op.retries });
      else if (op.kind === 'collect' && 'collected' in r)
        op.done({ ok: true, ...r.collected, retries: op.retries });
    }
  }

  private finishAll(ops: Op[], refusal: Refusal | Omit<Refusal, 'retries'>) {
    for (const op of ops) op.done({ ...refusal, retries: op.retries });
  }

  private async readWorkload(ref: WorkloadRef): Promise<{ ok: true; workload: Workload } | Refusal> {
    const { namespace, name } = ref;
    try {
      const obj =
        ref.kind === 'Deployment'
          ? await this.apps.readNamespacedDeployment({ namespace, name })
          : ref.kind === 'StatefulSet'
            ? await this.apps.readNamespacedStatefulSet({ namespace, name })
            : await this.batch.readNamespacedJob({ namespace, name });
      return {
        ok: true,
        workload: {
          ref,
          uid: obj.metadata?.uid,
          resourceVersion: obj.metadata?.resourceVersion,
          annotation: obj.metadata?.annotations?.[INSTANCE_IDS_ANNOTATION],
          replicas: instanceCount(ref.kind, obj.spec as { replicas?: number; parallelism?: number }),
          selector: obj.spec?.selector,
        },
      };
    } catch (e) {
      if (codeOf(e) === 404) return refuse(404, 'workload_not_found', `${workloadName(ref)} does not exist`);
      return this.clusterError(`reading ${workloadName(ref)}`, e);
    }
  }

  /** The workload's pods that can hold an ID, listed live by its selector. */
  private async livePods(w: Workload): Promise<{ ok: true; names: Set<string> } | Refusal> {
    this.stats.liveReads++;
    try {
      const list = await this.core.listNamespacedPod({
        namespace: w.ref.namespace,
        labelSelector: labelSelectorToString(w.selector as never) || undefined,
      });
      return { ok: true, names: new Set(list.items.filter(isLivePod).map((p) => p.metadata!.name!)) };
    } catch (e) {
      return this.clusterError(`listing the pods of ${workloadName(w.ref)}`, e);
    }
  }

  /** A merge patch of the annotation alone, conditional on the resourceVersion read. */
  private async patch(w: Workload, annotation: string) {
    const { namespace, name } = w.ref;
    const body = {
      metadata: {
        resourceVersion: w.resourceVersion,
        annotations: { [INSTANCE_IDS_ANNOTATION]: annotation },
      },
    };
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    if (w.ref.kind === 'Deployment')
      await this.apps.patchNamespacedDeployment({ namespace, name, body }, merge);
    else if (w.ref.kind === 'StatefulSet')
      await this.apps.patchNamespacedStatefulSet({ namespace, name, body }, merge);
    else await this.batch.patchNamespacedJob({ namespace, name, body }, merge);
  }

  private clusterError(what: string, e: unknown): Refusal {
    return refuse(502, 'cluster_error', `${what} failed: ${errorText(e)}`);
  }
}

export const workloadName = (w: WorkloadRef) => `${w.kind} ${w.namespace}/${w.name}`;
