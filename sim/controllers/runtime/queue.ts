// A controller work queue: keys are deduplicated, handled one at a time, retried
// with per-key exponential backoff, and delayed keys share one timer (a min-heap), so
// thousands of pending deadlines never become thousands of timers.
export class WorkQueue {
  private readonly ready = new Set<string>();
  private readonly delayed = new Map<string, number>();
  private heap: [number, string][] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private active = 0;
  private readonly inFlight = new Set<string>();
  /** keys re-added while being handled: handled again afterwards, never concurrently */
  private readonly dirty = new Set<string>();
  private stopped = false;
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly handle: (key: string) => Promise<void>,
    private readonly onError: (key: string, err: unknown) => void = () => undefined,
    private readonly concurrency = 1,
  ) {}

  add(key: string) {
    if (this.stopped) return;
    this.delayed.delete(key);
    if (this.inFlight.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.ready.add(key);
    if (this.active < this.concurrency) setImmediate(() => void this.drain());
  }

  /** Add the key after ms (the earliest deadline wins if it is already scheduled). */
  addAfter(key: string, ms: number) {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const existing = this.delayed.get(key);
    if (existing !== undefined && existing <= at) return;
    this.delayed.set(key, at);
    this.push([at, key]);
    this.arm();
  }

  private push(item: [number, string]) {
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p][0] <= h[i][0]) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private pop(): [number, string] | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l][0] < h[m][0]) m = l;
        if (r < h.length && h[r][0] < h[m][0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }

  private arm() {
    const next = this.heap[0];
    if (!next || next[0] >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next[0];
    this.timer = setTimeout(() => this.fire(), Math.max(0, next[0] - Date.now()));
  }

  private fire() {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    while (this.heap.length && this.heap[0][0] <= now) {
      const [at, key] = this.pop()!;
      if (this.delayed.get(key) === at) this.add(key);
    }
    this.arm();
  }

  private async drain() {
    if (this.active >= this.concurrency) return;
    this.active++;
    try {
      while (!this.stopped) {
        const key = this.next();
        if (key === undefined) break;
        this.inFlight.add(key);
        try {
          await this.handle(key);
          this.failures.delete(key);
        } catch (err) {
          this.onError(key, err);
          const n = (this.failures.get(key) ?? 0) + 1;
          this.failures.set(key, n);
          this.inFlight.delete(key);
          this.addAfter(key, Math.min(50 * 2 ** n, 5_000));
        } finally {
          this.inFlight.delete(key);
          if (this.dirty.delete(key)) this.add(key);
        }
      }
    } finally {
      this.active--;
    }
  }

  private next(): string | undefined {
    for (const key of this.ready) {
      this.ready.delete(key);
      return key;
    }
    return undefined;
  }

  get length() {
    return this.ready.size + this.delayed.size;
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
