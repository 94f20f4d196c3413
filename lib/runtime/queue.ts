// The controller runtime's work queue, as pure rules (no timers, no I/O): the same contract as
// client-go's workqueue, which controller-runtime's manager runs its reconcilers on.
// - De-duplication: a key queued twice before a worker takes it is processed once.
// - A key is never processed by two workers at once; a key added while it is being processed is
//   marked dirty and queued again when its worker is done, so the change is never lost.
// - Delayed adds (requeueAfter, backoff): per key only the earliest pending time is kept.
// - Per-key exponential backoff on errors, capped, forgotten after a success.
// server/runtime/controller.ts drives these with timers and workers.

export class WorkQueue<K = string> {
  private readonly order: K[] = [];
  /** queued or to be queued again once processed */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private shut = false;

  /** Queue a key; false when it was already waiting (de-duplicated) or the queue is shut down. */
  add(key: K): boolean {
    if (this.shut || this.dirty.has(key)) return false;
    this.dirty.add(key);
    // being processed: it goes back into the order when done() is called
    if (!this.processing.has(key)) this.order.push(key);
    return true;
  }

  /** The next key for a worker (marked processing), or undefined when none is ready. */
  get(): K | undefined {
    if (this.shut) return undefined;
    const key = this.order.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  /** A worker finished a key: if it was added meanwhile, it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (!this.shut && this.dirty.has(key)) this.order.push(key);
  }

  /** keys waiting for a worker (not counting those being processed) */
  get length(): number {
    return this.order.length;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  isProcessing(key: K): boolean {
    return this.processing.has(key);
  }

  get shuttingDown(): boolean {
    return this.shut;
  }

  /** Drop every waiting key; no key is handed out or queued again after this. */
  shutDown(): void {
    this.shut = true;
    this.order.length = 0;
    this.dirty.clear();
  }
}

/** Keys to be added at a time; per key only the earliest time is kept (client-go's delaying queue). */
export class DelayedKeys<K = string> {
  private readonly at = new Map<K, number>();

  /** true when this changed when the key is due (new, or earlier than before) */
  add(key: K, dueAt: number): boolean {
    const had = this.at.get(key);
    if (had !== undefined && had <= dueAt) return false;
    this.at.set(key, dueAt);
    return true;
  }

  /** Remove and return the keys due at `now`, earliest first. */
  takeDue(now: number): K[] {
    const due = [...this.at].filter(([, t]) => t <= now).sort((a, b) => a[1] - b[1]);
    for (const [k] of due) this.at.delete(k);
    return due.map(([k]) => k);
  }

  /** when the next key is due (undefined: none waiting) */
  next(): number | undefined {
    let min: number | undefined;
    for (const t of this.at.values()) if (min === undefined || t < min) min = t;
    return min;
  }

  dueAt(key: K): number | undefined {
    return this.at.get(key);
  }

  get size(): number {
    return this.at.size;
  }

  clear(): void {
    this.at.clear();
  }
}

export interface BackoffPolicy {
  /** the first retry's delay */
  baseMs: number;
  /** the cap: no retry waits longer */
  maxMs: number;
}

/** Per-key exponential backoff: base, 2·base, 4·base, … capped at max; a success forgets the key. */
export class Backoff<K = string> {
  private readonly failures = new Map<K, number>();

  constructor(private readonly policy: BackoffPolicy) {}

  /** Record a failure and return how long to wait before the retry. */
  fail(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return backoffDelay(n, this.policy);
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  failuresOf(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/** The delay after `failuresBefore` earlier failures in a row: base·2^n, capped at max. */
export function backoffDelay(failuresBefore: number, p: BackoffPolicy): number {
  // 2^n overflows to Infinity long after the cap: min() still holds
  return Math.min(p.maxMs, p.baseMs * 2 ** Math.max(0, failuresBefore));
}
