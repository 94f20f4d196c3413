// The skeleton the workload controllers (StatefulSet, ReplicaSet, Deployment,
// EndpointSlice) share: one work queue of namespace/name keys, held until start() so
// the informers' initial lists do not trigger syncs against a half-filled cache, and
// failures (409 Conflict included) retried with the queue's backoff.
import type { Controller, ControllerContext } from './runtime/context.js';
import { statusCode } from './runtime/context.js';
import { WorkQueue } from './runtime/queue.js';

export const keyOf = (o: { metadata?: { namespace?: string; name?: string } }) =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Runs a write; a 409 AlreadyExists / 404 NotFound are answered with false instead of thrown. */
export async function tolerate(code: 404 | 409, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (statusCode(err) === code) return false;
    throw err;
  }
}

export abstract class WorkloadController implements Controller {
  abstract readonly name: string;
  protected ctx!: ControllerContext;
  private readonly held = new Set<string>();
  private state: 'registered' | 'running' | 'stopped' = 'registered';
  private readonly queue = new WorkQueue(
    (key) => this.sync(key),
    (key, err) =>
      this.ctx.log(
        this.name,
        statusCode(err) === 409
          ? `sync ${key}: conflict (our cache was behind), retrying`
          : `sync ${key} failed: ${err instanceof Error ? err.message : err}`,
      ),
  );

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.watch(ctx);
  }

  start() {
    this.state = 'running';
    for (const key of this.held) this.queue.add(key);
    this.held.clear();
  }

  stop() {
    this.state = 'stopped';
    this.queue.stop();
  }

  protected enqueue(key: string | undefined, afterMs = 0) {
    if (!key || this.state === 'stopped') return;
    if (this.state === 'registered') this.held.add(key);
    else if (afterMs > 0) this.queue.addAfter(key, afterMs);
    else this.queue.add(key);
  }

  /** Subscribe to the informers this controller needs. */
  protected abstract watch(ctx: ControllerContext): void;
  protected abstract sync(key: string): Promise<void>;
}
