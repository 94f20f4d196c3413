// One loop on the controller runtime: a work queue of keys (lib/runtime/queue.ts: de-duplicated,
// a key never processed twice at once and processed again if it changed meanwhile), delayed
// adds for requeueAfter, per-key exponential backoff on errors, at most `concurrency`
// reconciles at a time. It runs only inside a leader's term (server/runtime/manager.ts): run()
// at the start of a term, halt() at its end, when every waiting key and timer is dropped at once
// and a reconcile still in flight has its result ignored (its writes are refused by the term's
// kubeconfig, server/runtime/gate.ts).
import { Backoff, type BackoffPolicy, DelayedKeys, WorkQueue } from '../../lib/runtime/queue.js';
import { afterReconcile, isRequeue, type Result } from '../../lib/runtime/result.js';
import { errorText } from '../../lib/kube/errorText.js';
import { component, type Logger } from '../log.js';
import { isStaleEpochRefusal } from '../../lib/leader/events.js';
import { isNotLeader, type Term } from './gate.js';
import type { RuntimeMetrics } from './metrics.js';

export interface Reconciler<Reason extends string = string> {
  /**
   * A term begins: make clients with term.kc(...), wait for the caches the decisions read, and
   * enqueue every key (a new leader looks at everything, as after a restart).
   */
  begin?(term: Term, c: Controller<Reason>): Promise<void> | void;
  reconcile(key: string, term: Term): Promise<Result<Reason>>;
  /** the term ended: drop what belonged to it */
  end?(): void;
}

export interface ControllerOptions<Reason extends string> {
  /** the loop's name in metrics and logs, e.g. 'aggregator:cell-a', 'fencing' */
  name: string;
  reconciler: Reconciler<Reason>;
  /** reconciles at once (default 1) */
  concurrency?: number;
  /** errors: base and cap of the per-key exponential backoff (default 1 s to 60 s) */
  backoff?: BackoffPolicy;
  logger?: Logger;
}

export class Controller<Reason extends string = string> {
  readonly name: string;
  private queue = new WorkQueue<string>();
  private readonly delayed = new DelayedKeys<string>();
  private backoff: Backoff<string>;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private term: Term | undefined;
  private workers = 0;
  private readonly log: Logger;
  private metrics?: { m: RuntimeMetrics; cluster: string };
  /** the typed reason of each key's last requeue (cleared by done) */
  private readonly waits = new Map<string, Reason>();

  constructor(private readonly o: ControllerOptions<Reason>) {
    this.name = o.name;
    this.backoff = new Backoff(o.backoff ?? { baseMs: 1_000, maxMs: 60_000 });
    this.log = component('runtime', { controller: o.name }, o.logger);
    this.queue.shutDown();
  }

  /** @internal the manager's metrics, labelled with its cluster */
  instrument(m: RuntimeMetrics, cluster: string) {
    this.metrics = { m, cluster };
  }

  /** @internal told when Palisade's webhook refused a write of this loop's term as stale */
  onStaleEpoch?: (term: Term) => void;

  /** true inside a term (this console leads and the loop runs) */
  get running() {
    return this.term?.active === true;
  }

  /** the current term, while running */
  get currentTerm(): Term | undefined {
    return this.running ? this.term : undefined;
  }

  /** keys ready for a worker */
  get depth() {
    return this.queue.length;
  }

  /** keys waiting for a delay */
  get waiting() {
    return this.delayed.size;
  }

  /** why each key waits, as its last reconcile said (typed, never message text) */
  waitReasons(): ReadonlyMap<string, Reason> {
    return this.waits;
  }

  /** Look at a key now (no-op outside a term: a follower only watches). */
  enqueue(key: string) {
    if (!this.running || !key) return;
    if (this.queue.add(key)) this.gauge();
    this.pump();
  }

  /** Look at a key after `ms` (the earliest pending time wins). */
  enqueueAfter(key: string, ms: number) {
    if (!this.running || !key) return;
    if (ms <= 0) return this.enqueue(key);
    if (this.delayed.add(key, Date.now() + ms)) this.arm();
    this.gauge();
  }

  /** Start the loop in a term: begin() (clients, caches, every key), then the workers. */
  async run(term: Term) {
    this.halt();
    this.term = term;
    this.queue = new WorkQueue<string>();
    this.backoff = new Backoff(this.o.backoff ?? { baseMs: 1_000, maxMs: 60_000 });
    this.waits.clear();
    // keys enqueued by begin() wait until it is done (a decision on a partial cache is wrong)
    this.workers = Number.POSITIVE_INFINITY;
    try {
      await this.o.reconciler.begin?.(term, this);
    } catch (e) {
      if (term.active) this.log.error({ err: errorText(e) }, 'loop did not start');
      return;
    } finally {
      if (this.term === term) this.workers = 0;
    }
    if (this.term !== term || !term.active) return;
    this.log.debug({ epoch: term.epoch, keys: this.queue.length }, 'running');
    this.pump();
  }

  /** Stop at once: no key is handed out again in this term; in-flight results are ignored. */
  halt() {
    const had = this.term;
    this.term = undefined;
    this.queue.shutDown();
    this.delayed.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.waits.clear();
    this.workers = 0;
    this.gauge();
    if (had) this.o.reconciler.end?.();
  }

  private pump() {
    const limit = this.o.concurrency ?? 1;
    const term = this.term;
    while (term?.active && this.workers < limit) {
      const key = this.queue.get();
      if (key === undefined) break;
      this.workers++;
      void this.process(term, key);
    }
    this.gauge();
  }

  private async process(term: Term, key: string) {
    const started = performance.now();
    let outcome: { result: Result<Reason> } | { error: unknown };
    try {
      outcome = { result: await this.o.reconciler.reconcile(key, term) };
    } catch (error) {
      outcome = { error };
    }
    // the term ended meanwhile: whatever it decided is no longer this console's business
    if (this.term !== term || !term.active) return;
    this.workers--;
    const seconds = (performance.now() - started) / 1000;
    const label = 'error' in outcome ? 'error' : isRequeue(outcome.result) ? 'requeue' : 'done';
    const m = this.metrics;
    m?.m.reconcileSeconds.observe({ cluster: m.cluster, controller: this.name, result: label }, seconds);
    if ('error' in outcome && isStaleEpochRefusal(outcome.error)) {
      // a newer leader exists: stepping down now beats waiting for the renew deadline
      this.log.warn({ key, epoch: term.epoch, err: errorText(outcome.error) }, 'write refused: stale epoch');
      this.onStaleEpoch?.(term);
      return;
    }
    if ('error' in outcome) {
      m?.m.reconcileErrors.inc({ cluster: m.cluster, controller: this.name });
      if (!isNotLeader(outcome.error))
        this.log.warn(
          { key, err: errorText(outcome.error), failures: this.backoff.failuresOf(key) + 1 },
          'reconcile failed; retrying with backoff',
        );
    } else if (isRequeue(outcome.result)) {
      this.waits.set(key, outcome.result.reason);
      m?.m.requeues.inc({ cluster: m.cluster, controller: this.name, reason: outcome.result.reason });
    } else this.waits.delete(key);
    const after = afterReconcile(outcome, () => this.backoff.fail(key));
    if (after.forgetFailures) this.backoff.forget(key);
    this.queue.done(key);
    if (after.addAfterMs !== undefined) this.enqueueAfter(key, after.addAfterMs);
    this.pump();
  }

  /** one timer for the earliest delayed key */
  private arm() {
    const next = this.delayed.next();
    if (next === undefined || next >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(() => this.fire(), Math.max(0, next - Date.now()));
  }

  private fire() {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (!this.running) return;
    for (const key of this.delayed.takeDue(Date.now())) this.queue.add(key);
    this.arm();
    this.pump();
  }

  private gauge() {
    const m = this.metrics;
    if (!m) return;
    m.m.queueDepth.set({ cluster: m.cluster, controller: this.name }, this.queue.length);
    m.m.queueWaiting.set({ cluster: m.cluster, controller: this.name }, this.delayed.size);
  }
}
