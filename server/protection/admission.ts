// The webhook's decision for one pod deletion or eviction: find the protectors that
// select the pod, judge it in each through its RetryBatch, and answer. Fail closed: any
// error is thrown (the listener turns it into HTTP 500, and failurePolicy Fail keeps the
// pod). A pod under several protectors goes only if all admit; an admission one of them
// made is then taken back, so no quota stays half-reserved.
import { type AdmissionVerdict, REFUSAL_CODE, type Refusal } from '../../lib/protection/verdict.js';
import type * as k8s from '@kubernetes/client-node';
import {
  allowed,
  type AdmitRequest,
  type BatchRequest,
  type BatchRound,
  evaluateBatch,
  judgedSummary,
  type LiveCounts,
} from '../../lib/protection/batch.js';
import { lagOf } from '../../lib/protection/buckets.js';
import type { PodFacts } from '../../lib/protection/counts.js';
import { criterionOf, isForceDelete, podFacts, podHealth } from '../../lib/protection/pods.js';
import {
  cellsOf,
  statusOf,
  type HistoryConfig,
  DEFAULT_HISTORY_CONFIG,
} from '../../lib/protection/status.js';
import { type PodProtector, parseProtector, protectorKey } from '../../lib/protection/types.js';
import type { Criterion } from '../../lib/protection/types.js';
import type { DecisionLog } from './decisions.js';
import type { ProtectionMetrics } from './metrics.js';
import type { ProtectorStore } from './protectors.js';
import { RetryBatch, type RoundResult } from './retryBatch.js';
import { keepAliveStatusApi, type StatusApi, writeStatus } from './statusWrite.js';
import { isNotFound } from '../../lib/kube/errorText.js';

export interface AdmissionInput {
  cellId: string;
  operation: 'DELETE' | 'EVICT';
  pod: k8s.V1Pod;
  dryRun: boolean;
  evictionAnnotations?: Record<string, string>;
  user: string;
  /** ms since epoch after which the API server stops waiting */
  deadline: number;
}

export interface AdmissionAnswer {
  allowed: boolean;
  /** why, typed: what the history, metrics and review read (lib/protection/verdict.ts) */
  verdict: AdmissionVerdict;
  code?: number;
  message?: string;
  /** the protectors consulted, for the record */
  protectors: string[];
  warnings?: string[];
}

type Verdict = BatchRound['verdicts'][number];

const refused = (verdict: Refusal, message: string, protectors: string[]): AdmissionAnswer => ({
  allowed: false,
  verdict,
  code: REFUSAL_CODE[verdict],
  message,
  protectors,
});

export const tooFewMessage = (key: string, criterion: Criterion) =>
  `PodProtector ${key} reports too few ${criterion.toLowerCase()} replicas to admit pod deletion`;
export const bufferFullMessage = (key: string) =>
  `PodProtector ${key} has full admission buffer and is temporarily unable to admit pod deletion`;

export class ProtectorCacheNotSynced extends Error {
  constructor() {
    super('PodProtector informer is not synced yet');
  }
}

export class Admission {
  private readonly batch: RetryBatch<BatchRequest, Verdict>;
  private readonly status: StatusApi;
  /** our own last successful write per protector: fresher than the informer until it catches up */
  private readonly written = new Map<string, PodProtector>();

  constructor(
    coreKc: k8s.KubeConfig,
    private readonly store: ProtectorStore,
    private readonly metrics: ProtectionMetrics,
    private readonly decisions: DecisionLog,
    private readonly defaults: HistoryConfig = DEFAULT_HISTORY_CONFIG,
    /** per cell this replica indexes, its pods' counts for a protector now (see batch.ts) */
    private readonly live: (p: PodProtector) => LiveCounts | undefined = () => undefined,
  ) {
    this.status = keepAliveStatusApi(coreKc);
    this.batch = new RetryBatch({
      execute: (key, reqs, attempt) => this.round(key, reqs, attempt),
      onRound: (_k, size) => this.metrics.batchSize.observe(size),
    });
  }

  stop() {
    this.batch.stop();
    this.status.close?.();
  }

  async decide(input: AdmissionInput): Promise<AdmissionAnswer> {
    if (!this.store.synced) throw new ProtectorCacheNotSynced();
    const pod = input.pod;
    const facts = podFacts(pod);
    const entries = this.store
      .matching(facts.namespace, facts.labels)
      .sort((a, b) => protectorKey(a.protector).localeCompare(protectorKey(b.protector)));
    const keys = entries.map((e) => protectorKey(e.protector));
    if (entries.length === 0) return { allowed: true, verdict: 'unprotected', protectors: [] };
    if (facts.terminating) {
      // kube-apiserver validates an immediate deletion (grace 0: unscheduled or finished pods,
      // --grace-period=0) twice: on the live pod, then on the copy it has just marked deleted,
      // right before removing it. That second call is the same deletion: not logged again.
      const terminating: AdmissionAnswer = {
        allowed: true,
        verdict: 'already-terminating',
        protectors: keys,
      };
      if (pod.metadata?.deletionGracePeriodSeconds === 0) return terminating;
      return this.record(input, facts, terminating, 'already terminating');
    }
    const choice = criterionOf(pod.metadata?.annotations, input.evictionAnnotations);
    if (!choice.ok)
      return this.record(input, facts, {
        allowed: false,
        verdict: 'bad-criterion',
        code: REFUSAL_CODE['bad-criterion'],
        message: choice.error,
        protectors: keys,
      });
    // an unknown criterion is judged as Available; the caller is told why
    const warnings = choice.warning ? [choice.warning] : [];
    const force = isForceDelete(pod.metadata?.annotations);
    const now = Date.now();
    const requests = entries.map((e) => ({
      key: protectorKey(e.protector),
      req: {
        kind: 'admit',
        cellId: input.cellId,
        podUid: facts.uid,
        podName: facts.name,
        at: now,
        // a forced deletion happens: what the quota admits is booked like any other
        // deletion (as Podseidon does), or a second deletion could spend it again
        dryRun: input.dryRun,
        criterion: choice.criterion,
        health: podHealth(facts, e.protector.spec.minReadySeconds, now),
      } satisfies AdmitRequest,
    }));
    const verdicts = await Promise.all(
      requests.map((r) => {
        if (r.req.dryRun) return this.judgeDry(r.key, r.req);
        const booked = this.batch.submit(r.key, r.req, input.deadline);
        // a forced deletion is never refused, not even for an error
        return force ? booked.catch(() => this.judgeDry(r.key, r.req)) : booked;
      }),
    );
    const refusal = verdicts.findIndex((v) => !allowed(v));
    if (refusal < 0)
      return this.record(
        input,
        facts,
        {
          allowed: true,
          verdict: force ? 'forced' : 'admitted',
          protectors: keys,
          ...(warnings.length && { warnings }),
        },
        force ? 'force-delete' : undefined,
      );
    // one protector said no: take back what the others reserved (not when forced: the
    // pod goes anyway, so those reservations stand)
    await Promise.all(
      verdicts.map((v, i) =>
        v === 'Ok' && !requests[i].req.dryRun && !force
          ? this.batch
              .submit(
                requests[i].key,
                { kind: 'release', cellId: input.cellId, podUid: facts.uid, at: now },
                input.deadline + 5000,
              )
              .catch(() => undefined)
          : undefined,
      ),
    );
    const v = verdicts[refusal];
    const key = requests[refusal].key;
    const answer: AdmissionAnswer =
      v === 'Denied'
        ? refused('too-few', tooFewMessage(key, choice.criterion), keys)
        : refused('buffer-full', bufferFullMessage(key), keys);
    if (force)
      return this.record(
        input,
        facts,
        {
          allowed: true,
          verdict: 'forced',
          protectors: keys,
          warnings: [
            ...warnings,
            `${answer.message} (allowed: the pod carries podseidon.kubewharf.io/force-delete)`,
          ],
        },
        'force-delete',
        answer,
      );
    return this.record(input, facts, warnings.length ? { ...answer, warnings } : answer);
  }

  /** Dry runs and force-deletes: judged on the freshest copy, nothing written. */
  private async judgeDry(key: string, req: AdmitRequest): Promise<Verdict> {
    const p = this.current(key);
    if (!p) return 'Ok';
    return evaluateBatch(p, [req], Date.now(), this.defaults, this.live(p)).verdicts[0];
  }

  private current(key: string): PodProtector | undefined {
    const fromStore = this.store.get(key)?.protector;
    const mine = this.written.get(key);
    // once the informer has our write, or anything after it (the aggregator's next
    // count), its copy is the fresher one: keeping ours would judge on stale counts
    // and stale lag for good, since refusals never write and so never conflict
    if (mine && fromStore && !newerThan(mine, fromStore)) this.written.delete(key);
    return this.written.get(key) ?? fromStore;
  }

  private async round(key: string, reqs: BatchRequest[], attempt: number): Promise<RoundResult<Verdict>> {
    // the first try judges on the copy we have; after a conflict, on a fresh read
    const entry = this.store.get(key);
    if (!entry) return { kind: 'done', results: reqs.map((r) => (r.kind === 'release' ? 'Released' : 'Ok')) };
    const p = attempt > 0 && !entry.dangling ? await this.read(key) : this.current(key);
    if (!p) return { kind: 'done', results: reqs.map((r) => (r.kind === 'release' ? 'Released' : 'Ok')) };
    const now = Date.now();
    const round = evaluateBatch(p, reqs, now, this.defaults, this.live(p));
    if (!round.cells) return { kind: 'done', results: round.verdicts };
    const next: PodProtector = { ...p, status: { ...(p.status ?? {}), ...statusOf(round.cells, now) } };
    this.metrics.lag.set(
      { namespace: p.metadata.namespace, protector: p.metadata.name },
      round.cells.reduce((n, c) => n + lagOf(c.buckets), 0),
    );
    if (entry.dangling) {
      this.store.updateDangling(key, next);
      return { kind: 'done', results: round.verdicts };
    }
    const outcome = await this.write(next);
    if (outcome === 'conflict') return { kind: 'conflict' };
    return { kind: 'done', results: round.verdicts };
  }

  private async read(key: string): Promise<PodProtector | undefined> {
    const [namespace, name] = key.split('/');
    try {
      const raw = await this.status.readStatus(namespace, name);
      const parsed = parseProtector(raw);
      if (!parsed.ok) throw new Error(`PodProtector ${key}: ${parsed.error}`);
      this.written.set(key, parsed.value);
      return parsed.value;
    } catch (e) {
      if (isNotFound(e)) return this.store.get(key)?.protector;
      throw e;
    }
  }

  private async write(next: PodProtector): Promise<'ok' | 'conflict'> {
    const key = protectorKey(next);
    const r = await writeStatus(this.status, this.metrics, 'webhook', next);
    if (r.outcome === 'gone') throw new Error(`PodProtector ${key} is gone from the API`);
    if (r.outcome === 'conflict') {
      this.written.delete(key);
      return 'conflict';
    }
    if (r.outcome === 'ok' && r.written) this.written.set(key, r.written);
    return 'ok';
  }

  private record(
    input: AdmissionInput,
    facts: PodFacts,
    answer: AdmissionAnswer,
    note?: string,
    wouldBe?: AdmissionAnswer,
  ): AdmissionAnswer {
    const now = Date.now();
    for (const key of answer.protectors) {
      const p = this.current(key);
      this.decisions.add({
        at: now,
        protector: key,
        cell: input.cellId,
        pod: `${facts.namespace}/${facts.name}`,
        podUid: facts.uid,
        operation: input.operation,
        allowed: answer.allowed,
        verdict: answer.verdict,
        code: answer.allowed ? 200 : (answer.code ?? 400),
        message: answer.message ?? wouldBe?.message ?? note ?? 'admitted',
        requester: input.user,
        dryRun: input.dryRun,
        ...(note ? { note } : {}),
        ...(p ? { snapshot: snapshotOf(p, now, this.live(p)) } : {}),
      });
    }
    return answer;
  }
}

/**
 * Is `a` a later version than `b`? resourceVersions are etcd revisions (integers) on
 * real API servers and on the embedded one; for anything else, or equal versions, no —
 * the informer's copy is used, and a write from an older copy merely conflicts.
 */
function newerThan(a: PodProtector, b: PodProtector): boolean {
  const [x, y] = [a.metadata.resourceVersion, b.metadata.resourceVersion];
  if (!x || !y || !/^\d+$/.test(x) || !/^\d+$/.test(y)) return false;
  return BigInt(x) > BigInt(y);
}

function snapshotOf(p: PodProtector, now: number, live: LiveCounts | undefined) {
  const { summary: s, indexed } = judgedSummary(cellsOf(p), live, now);
  return {
    aggregated: s.aggregatedAvailableReplicas,
    estimated: s.estimatedAvailableReplicas,
    minAvailable: p.spec.minAvailable,
    // this replica's pod index saw fewer available than the aggregation says (batch.ts)
    ...(indexed !== undefined ? { indexed } : {}),
  };
}

export type { PodFacts };
