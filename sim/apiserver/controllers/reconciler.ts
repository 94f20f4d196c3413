// A tiny work queue for the API server's in-process loops: keys are deduplicated,
// processed one at a time off the request path, and retried after failures.
import { codeOf } from '../../../lib/kube/errorText.js';

export class Reconciler {
  private pending = new Set<string>();
  private running = false;
  private stopped = false;
  private timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly name: string,
    private readonly handle: (key: string) => Promise<void>,
    private readonly retryMs = 200,
  ) {}

  enqueue(key: string) {
    if (this.stopped) return;
    this.pending.add(key);
    if (!this.running) setImmediate(() => this.drain());
  }

  private async drain() {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (this.pending.size && !this.stopped) {
        const [key] = this.pending;
        this.pending.delete(key);
        try {
          await this.handle(key);
        } catch (e) {
          const code = codeOf(e);
          if (code !== 404) {
            if (process.env.PALISADE_DEBUG) console.error(`[${this.name}] ${key}: ${(e as Error).message}`);
            const t = setTimeout(() => {
              this.timers.delete(t);
              this.enqueue(key);
            }, this.retryMs);
            this.timers.add(t);
          }
        }
      }
    } finally {
      this.running = false;
    }
  }

  stop() {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
  }
}
