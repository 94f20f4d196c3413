// Acquire and release a pod's instance ID by compare-and-swap on its workload's annotation
// (seed 002), through the Kubernetes API with client-node: read the workload, decide
// (lib/instanceIds), write the new map with a merge patch that carries the resourceVersion
// that was read — so a write made meanwhile by anyone (another pod's request, another Palisade
// replica, the workload's controller, kubectl) makes ours a 409, and we read and decide again,
// after a jittered, growing wait, until a deadline. When no id is free, the holders are judged
// (lib/guard/stopped.ts: its pods listed by the workload's selector, their nodes and NodeFences
// read live, never from a cache; how a gone pod left the API from the watches) and only those
// known to have stopped lose their ids; otherwise the pod is told to wait, and for whom. What the API server refuses
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
import { type Departure, holderStopped, type StopVerdict } from '../../lib/guard/stopped.js';
import type { FenceFacts, NodeFacts as GuardNode } from '../../lib/guard/types.js';
import { type HolderRecord, nextHolderRecords, parseHolderRecords } from '../../lib/instanceIds/holders.js';
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
  INSTANCE_ID_NODES_ANNOTATION,
  INSTANCE_IDS_ANNOTATION,
  type RefusalCode,
  type ReleaseAnswer,
  type WaitingHolder,
  type WorkloadRef,
} from '../../lib/instanceIds/types.js';
import { codeOf, errorText } from '../../lib/kube/errorText.js';
import { labelSelectorToString } from '../../lib/kube/labelSelector.js';
import { FENCE_PLURAL, GROUP, parseNodeFence, VERSION } from '../../lib/fencing/types.js';
import { parseIdMap } from '../../lib/instanceIds/map.js';
import {
  judgeNamespace,
  judgeOptIn,
  missingGrantMessage,
  workloadResource,
} from '../../lib/instanceIds/scope.js';
import { fenceFacts, nodeFacts } from '../actions/live.js';
import { component, type Logger } from '../log.js';
import type { HolderFactsSource } from './holderFacts.js';

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
  /**
   * where Palisade gives out instance IDs (palisade.yaml instanceIds.namespaces; ["*"]: every
   * namespace, the default here — the console passes the configured list)
   */
  namespaces?: readonly string[];
}

export type Refusal = {
  ok: false;
  status: number;
  code: RefusalCode;
  message: string;
  retries: number;
  /** holder_not_stopped: the holders it waits for */
  waiting?: WaitingHolder[];
};
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
  /** holder judgements (pods, nodes and fences read live) because no id was free */
  liveReads: number;
  /** the most requests one write carried */
  largestBatch: number;
}

interface Workload {
  ref: WorkloadRef;
  uid?: string;
  resourceVersion?: string;
  annotation?: string;
  labels?: Record<string, string>;
  /** the holders' nodes and boots (INSTANCE_ID_NODES_ANNOTATION) */
  records?: string;
  replicas: number;
  selector?: k8s.V1LabelSelector;
}

type AcquireOutcome = Outcome<AcquireAnswer & AcquireDetail>;
type ReleaseOutcome = Outcome<ReleaseAnswer>;

/** One pod's request, waiting for a write of its workload's map. */
type CollectOutcome = Outcome<{ workload: WorkloadRef; dropped: Entry[]; retries: number }>;

/** One pod's request (or the collector's sweep), waiting for a write of its workload's map. */
type Op = { pod: string; deadline: number; retries: number } & (
  | { kind: 'acquire'; done: (o: AcquireOutcome) => void; record?: HolderRecord }
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

/** What one write changes: the map, the holders' record beside it, or both. */
interface Annotations {
  map?: string;
  records?: string;
}

type Judged = { ok: true; holders: Map<string, StopVerdict>; nodes: Map<string, string> } | Refusal;

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
  private readonly custom: k8s.CustomObjectsApi;
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
    /** how gone pods left the API (the watches); without it a gone holder is judged by its node alone */
    private readonly facts?: HolderFactsSource,
  ) {
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.apps = kc.makeApiClient(k8s.AppsV1Api);
    this.batch = kc.makeApiClient(k8s.BatchV1Api);
    this.log = logger ?? component('instance-ids');
  }

  async acquire(who: PodIdentity): Promise<AcquireOutcome> {
    const scope = this.inScope(who.namespace);
    if (scope) return scope;
    const found = await this.podAndOwner(who, 'acquire');
    if (!found.ok) return found;
    const record = found.node ? await this.recordOf(found.node) : undefined;
    if (record && !record.ok) return record;
    const o = await new Promise<AcquireOutcome>((done) =>
      this.submit(who.namespace, found.owner, {
        kind: 'acquire',
        pod: who.pod,
        deadline: this.deadline(),
        retries: 0,
        done,
        ...(record ? { record: record.record } : {}),
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
    const scope = this.inScope(who.namespace);
    if (scope) return scope;
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
    const scope = this.inScope(ref.namespace);
    if (scope) return scope;
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

  /** A refusal when palisade.yaml does not list the namespace. */
  private inScope(namespace: string): Refusal | undefined {
    const d = judgeNamespace(this.opts.namespaces ?? ['*'], namespace);
    return d.ok ? undefined : refuse(403, 'not_enabled', d.message);
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
  ): Promise<{ ok: true; owner: Owner; node?: string } | Refusal> {
    let pod: k8s.V1Pod;
    try {
      pod = await this.core.readNamespacedPod({ namespace: who.namespace, name: who.pod });
    } catch (e) {
      if (codeOf(e) === 404)
        return refuse(404, 'pod_not_found', `pod ${who.namespace}/${who.pod} does not exist`);
      return this.clusterError(`reading pod ${who.namespace}/${who.pod}`, e, {
        verbs: 'get',
        resource: 'pods',
        namespace: who.namespace,
      });
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
        return this.clusterError(`reading ReplicaSet ${who.namespace}/${step.name}`, e, {
          verbs: 'get',
          resource: 'replicasets.apps',
          namespace: who.namespace,
        });
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
    return { ok: true, owner: step.owner, ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}) };
  }

  /** Where the asking pod runs now: its node and that node's boot, read live. */
  private async recordOf(node: string): Promise<{ ok: true; record: HolderRecord } | Refusal> {
    try {
      const n = await this.core.readNode({ name: node });
      const bootID = n.status?.nodeInfo?.bootID;
      return { ok: true, record: { node, ...(bootID ? { bootID } : {}) } };
    } catch (e) {
      if (codeOf(e) === 404) return { ok: true, record: { node } };
      return this.clusterError(`reading node ${node}`, e, { verbs: 'get', resource: 'nodes' });
    }
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
      const optIn = judgeOptIn(ref, w.labels);
      if (!optIn.ok) return this.finishAll(pending, refuse(403, 'not_enabled', optIn.message));
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
        if (code === 403)
          return this.finishAll(
            pending,
            this.forbidden(
              { verbs: 'get, patch', resource: workloadResource(ref), namespace, name: ref.name },
              e,
            ),
          );
        if (code === 422 || code === 400) {
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

  /**
   * Every op's decision on the map as the ops before it left it; `next`: the annotations to
   * write (the map and the holders' record beside it), if either changed.
   */
  private async decideAll(w: Workload, ops: Op[]): Promise<{ next?: Annotations; results: Result[] }> {
    let raw = w.annotation;
    let changed = false;
    let judged: Promise<Judged> | undefined;
    const seen = new Map<string, HolderRecord>();
    const results: Result[] = [];
    for (const op of ops) {
      if (op.kind === 'collect') {
        judged ??= this.judge(w);
        const j = await judged;
        if (!j.ok) {
          results.push(j);
          continue;
        }
        const d = decideCollect({ raw, holders: j.holders });
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
        // judged once for all the ops of this attempt that need it
        judged ??= this.judge(w);
        const j = await judged;
        if (!j.ok) {
          results.push(j);
          continue;
        }
        d = decideAcquire({ raw, replicas: w.replicas, pod: op.pod, holders: j.holders });
        if (d.kind === 'wait') {
          const waiting: WaitingHolder[] = d.unconfirmed.map((u) => ({
            id: u.id,
            pod: u.pod,
            ...(j.nodes.has(u.pod) ? { node: j.nodes.get(u.pod) } : {}),
            reason: u.verdict.reason,
            text: u.verdict.text,
          }));
          results.push({
            ...refuse(409, 'holder_not_stopped', `${workloadName(w.ref)}: ${d.message}`),
            waiting,
          });
          continue;
        }
      }
      if (d.kind === 'invalid')
        results.push(refuse(422, 'invalid_map', invalidMapMessage(w.ref, d.problems)));
      else if (d.kind === 'full')
        results.push(refuse(409, 'no_free_id', `${workloadName(w.ref)}: ${d.message}`));
      else if (d.kind === 'needLive' || d.kind === 'wait')
        throw new Error('the holders were judged: the decision cannot ask for them again');
      else {
        if (d.next !== undefined) {
          raw = d.next;
          changed = true;
        }
        if (op.record) seen.set(op.pod, op.record);
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
    // the record follows the map as it will be written; a pod that asked updates its own
    const records = nextHolderRecords(w.records, raw, seen);
    if (!changed && records === undefined) return { results };
    return {
      next: { ...(changed ? { map: raw } : {}), ...(records !== undefined ? { records } : {}) },
      results,
    };
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
          labels: obj.metadata?.labels,
          records: obj.metadata?.annotations?.[INSTANCE_ID_NODES_ANNOTATION],
          replicas: instanceCount(ref.kind, obj.spec as { replicas?: number; parallelism?: number }),
          selector: obj.spec?.selector,
        },
      };
    } catch (e) {
      if (codeOf(e) === 404) return refuse(404, 'workload_not_found', `${workloadName(ref)} does not exist`);
      return this.clusterError(`reading ${workloadName(ref)}`, e, {
        verbs: 'get, patch',
        resource: workloadResource(ref),
        namespace,
        name,
      });
    }
  }

  /**
   * Whether each pod the map names stopped for sure (lib/guard/stopped.ts): the workload's pods
   * listed live by its selector, their nodes and NodeFences read live; a pod the list does not
   * have is judged by how the watches saw it go, or by the node recorded when it took its ID.
   */
  private async judge(w: Workload): Promise<Judged> {
    this.stats.liveReads++;
    const named = [...parseIdMap(w.annotation).map.values()];
    const records = parseHolderRecords(w.records);
    let list: k8s.V1PodList;
    try {
      list = await this.core.listNamespacedPod({
        namespace: w.ref.namespace,
        labelSelector: labelSelectorToString(w.selector as never) || undefined,
      });
    } catch (e) {
      return this.clusterError(`listing the pods of ${workloadName(w.ref)}`, e, {
        verbs: 'list',
        resource: 'pods',
        namespace: w.ref.namespace,
      });
    }
    const pods = new Map(list.items.map((p) => [p.metadata!.name!, p]));
    const nodeOf = new Map<string, string>();
    const departures = new Map<string, Departure | undefined>();
    for (const pod of named) {
      const p = pods.get(pod);
      const dep = p ? undefined : this.facts?.departure(w.ref.namespace, pod);
      departures.set(pod, dep);
      const node = p ? p.spec?.nodeName : (dep?.nodeName ?? records.get(pod)?.node);
      if (node) nodeOf.set(pod, node);
    }
    const nodeNames = [...new Set(nodeOf.values())];
    let byNode: Map<string, { node?: GuardNode; fence?: FenceFacts }>;
    try {
      const [nodes, fences] = await Promise.all([
        Promise.all(nodeNames.map((n) => this.readNodeFacts(n))),
        Promise.all(nodeNames.map((n) => this.readFenceFacts(n))),
      ]);
      byNode = new Map(nodeNames.map((n, i) => [n, { node: nodes[i], fence: fences[i] }]));
    } catch (e) {
      return this.clusterError(`reading the nodes of ${workloadName(w.ref)}'s pods and their fences`, e, {
        verbs: 'get',
        resource: 'nodes and nodefences.palisade.dev',
      });
    }
    const holders = new Map<string, StopVerdict>();
    for (const pod of named) {
      const p = pods.get(pod);
      const node = nodeOf.get(pod);
      const at = node ? byNode.get(node) : undefined;
      holders.set(
        pod,
        holderStopped({
          name: pod,
          pod: p && {
            name: pod,
            nodeName: p.spec?.nodeName,
            phase: p.status?.phase,
            deletionTimestamp: p.metadata?.deletionTimestamp
              ? String(p.metadata.deletionTimestamp)
              : undefined,
          },
          departure: departures.get(pod),
          nodeName: records.get(pod)?.node,
          bootId: records.get(pod)?.bootID,
          node: at?.node,
          fence: at?.fence,
        }),
      );
    }
    return { ok: true, holders, nodes: nodeOf };
  }

  private async readNodeFacts(name: string) {
    try {
      return nodeFacts(await this.core.readNode({ name }));
    } catch (e) {
      if (codeOf(e) === 404) return undefined;
      throw e;
    }
  }

  /** The node's NodeFence; none (404, or the CRD not installed) or one Palisade cannot read counts as no fence. */
  private async readFenceFacts(name: string) {
    try {
      const raw = await this.custom.getClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: FENCE_PLURAL,
        name,
      });
      const parsed = parseNodeFence(raw);
      return parsed.ok ? fenceFacts(parsed.value) : undefined;
    } catch (e) {
      if (codeOf(e) === 404) return undefined;
      throw e;
    }
  }

  /** A merge patch of the annotations alone, conditional on the resourceVersion read. */
  private async patch(w: Workload, next: Annotations) {
    const { namespace, name } = w.ref;
    const body = {
      metadata: {
        resourceVersion: w.resourceVersion,
        annotations: {
          ...(next.map !== undefined ? { [INSTANCE_IDS_ANNOTATION]: next.map } : {}),
          ...(next.records !== undefined ? { [INSTANCE_ID_NODES_ANNOTATION]: next.records } : {}),
        },
      },
    };
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    if (w.ref.kind === 'Deployment')
      await this.apps.patchNamespacedDeployment({ namespace, name, body }, merge);
    else if (w.ref.kind === 'StatefulSet')
      await this.apps.patchNamespacedStatefulSet({ namespace, name, body }, merge);
    else await this.batch.patchNamespacedJob({ namespace, name, body }, merge);
  }

  /** The API server forbade Palisade something: which grant is missing. */
  private forbidden(what: Parameters<typeof missingGrantMessage>[0], e: unknown): Refusal {
    return refuse(403, 'not_permitted', missingGrantMessage(what, errorText(e)));
  }

  private clusterError(what: string, e: unknown, grant?: Parameters<typeof missingGrantMessage>[0]): Refusal {
    if (grant && codeOf(e) === 403) return this.forbidden(grant, e);
    return refuse(502, 'cluster_error', `${what} failed: ${errorText(e)}`);
  }
}

export const workloadName = (w: WorkloadRef) => `${w.kind} ${w.namespace}/${w.name}`;
