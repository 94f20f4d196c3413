// RetryBatch: concurrent admission requests for one protector are coalesced into one
// optimistic status write. While a round is in flight, new requests queue; the next round
// takes them all and judges them on the freshest copy. On 409 the whole round is judged
// again on a fresh read after a jittered backoff, until each request's own deadline;
// requests whose caller gave up are dropped before the next try.

export interface Pending<Req, Res> {
  req: Req;
  deadline: number;
  resolve: (r: Res) => void;
  reject: (e: Error) => void;
}

export type RoundResult<Res> = { kind: 'done'; results: Res[] } | { kind: 'conflict' };

export interface RetryBatchOptions<Req, Res> {
  /** judge and write one round; 'conflict' when the write hit a stale resourceVersion */
  execute(key: string, reqs: Req[], attempt: number): Promise<RoundResult<Res>>;
  backoffBaseMs?: number;
  backoffJitterMs?: number;
  onRound?: (key: string, size: number, outcome: 'done' | 'conflict' | 'error') => void;
}

export class DeadlineExceeded extends Error {
  constructor() {
    super('the request timed out while waiting for its PodProtector status update');
  }
}

class KeyQueue<Req, Res> {
  waiting: Pending<Req, Res>[] = [];
  running = false;
}

export class RetryBatch<Req, Res> {
  private readonly queues = new Map<string, KeyQueue<Req, Res>>();
  private stopped = false;

  constructor(private readonly opts: RetryBatchOptions<Req, Res>) {}

  submit(key: string, req: Req, deadline: number): Promise<Res> {
    if (this.stopped) return Promise.reject(new Error('admission is shutting down'));
    return new Promise<Res>((resolve, reject) => {
      let q = this.queues.get(key);
      if (!q) this.queues.set(key, (q = new KeyQueue()));
      q.waiting.push({ req, deadline, resolve, reject });
      if (!q.running) void this.drain(key, q);
    });
  }

  stop() {
    this.stopped = true;
    for (const q of this.queues.values())
      for (const p of q.waiting.splice(0)) p.reject(new Error('admission is shutting down'));
  }

  private async drain(key: string, q: KeyQueue<Req, Res>) {
    q.running = true;
    let batch: Pending<Req, Res>[] = [];
    let attempt = 0;
    try {
      for (;;) {
        // everything queued joins the batch; callers that gave up leave it
        batch = dropExpired([...batch, ...q.waiting.splice(0)]);
        if (batch.length === 0 || this.stopped) break;
        const outcome = await this.round(key, batch, attempt);
        if (outcome === 'done') {
          batch = [];
          attempt = 0;
          continue;
        }
        attempt++;
        await sleep(this.backoff(attempt));
      }
    } finally {
      q.running = false;
      if (q.waiting.length && !this.stopped) void this.drain(key, q);
      else if (!q.waiting.length) this.queues.delete(key);
    }
  }

  private async round(key: string, batch: Pending<Req, Res>[], attempt: number): Promise<'done' | 'retry'> {
    try {
      const r = await this.opts.execute(
        key,
        batch.map((p) => p.req),
        attempt,
      );
      this.opts.onRound?.(key, batch.length, r.kind);
      if (r.kind === 'conflict') return 'retry';
      for (const [i, p] of batch.entries()) p.resolve(r.results[i]);
      return 'done';
    } catch (e) {
      this.opts.onRound?.(key, batch.length, 'error');
      for (const p of batch) p.reject(e as Error);
      return 'done';
    }
  }

  private backoff(attempt: number) {
    const base = this.opts.backoffBaseMs ?? 20;
    const jitter = this.opts.backoffJitterMs ?? 30;
    return Math.min(1000, base * 2 ** Math.min(attempt - 1, 5)) + Math.random() * jitter;
  }
}

function dropExpired<Req, Res>(batch: Pending<Req, Res>[]) {
  const now = Date.now();
  return batch.filter((p) => {
    if (p.deadline > now) return true;
    p.reject(new DeadlineExceeded());
    return false;
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
