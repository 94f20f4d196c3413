// The controller builder, like controller-runtime's: a loop says what it is `for` (the kind it
// reconciles), what it `owns` (the objects it writes, mapped back to their owner's key) and what
// else it `watches`, each with a function from a change to the keys it touches, and its typed
// key's codec (lib/runtime/keys.ts). The builder wires every source to one Controller (queue,
// backoff, leader-gated terms) and decodes each key before the reconciler sees it, so no loop
// splits or joins key strings by hand. `Manager.controller(spec)` builds and adds one; Palisade's
// capabilities build theirs with `new Loop(spec)` and hand them to server/loops.ts, which adds them.
import type { KeyCodec } from '../../lib/runtime/keys.js';
import type { Result } from '../../lib/runtime/result.js';
import type { BackoffPolicy } from '../../lib/runtime/queue.js';
import type { Handler } from '../kube/informer.js';
import type { Logger } from '../log.js';
import { Controller } from './controller.js';
import type { Term } from './gate.js';

/** Anything that tells changes as an informer does: an informer's projection, a store. */
export interface Source<V> {
  on(h: Handler<V>): void;
}

export type Change = 'add' | 'update' | 'delete';

/** keys a change touches: one, several, or none (undefined / false) */
type Keys<K> = K | readonly K[] | undefined | false;

export interface Watch<K, V = any> {
  source: Source<V>;
  /** the keys a change touches (on a delete, view is the last copy) */
  keys: (view: V, change: Change) => Keys<K>;
}

export interface LoopSpec<K, Reason extends string> {
  /** the loop's name in metrics and logs */
  name: string;
  key: KeyCodec<K>;
  /** the kind (or kinds) the loop reconciles */
  for?: Watch<K> | readonly Watch<K>[];
  /** the objects it writes, mapped back to their owner's key */
  owns?: readonly Watch<K>[];
  /** anything else whose change bears on a key */
  watches?: readonly Watch<K>[];
  /** a term begins: clients from term.kc(...), caches waited for, every key enqueued */
  begin?(term: Term, loop: Loop<K, Reason>): Promise<void> | void;
  reconcile(key: K, term: Term): Promise<Result<Reason>>;
  /** the term ended: drop what belonged to it */
  end?(): void;
  concurrency?: number;
  backoff?: BackoffPolicy;
  logger?: Logger;
}

/** A built loop: its Controller (for the manager) and typed enqueueing. */
export class Loop<K, Reason extends string = string> {
  readonly controller: Controller<Reason>;

  constructor(private readonly spec: LoopSpec<K, Reason>) {
    this.controller = new Controller<Reason>({
      name: spec.name,
      reconciler: {
        begin: spec.begin ? (term) => spec.begin!(term, this) : undefined,
        reconcile: (text, term) => {
          const key = spec.key.decode(text);
          // only encode() fills the queue: a text it cannot read is a bug, not a retry
          if (key === undefined) throw new Error(`${spec.name}: not a key of this loop: ${text}`);
          return spec.reconcile(key, term);
        },
        end: spec.end ? () => spec.end!() : undefined,
      },
      concurrency: spec.concurrency,
      backoff: spec.backoff,
      logger: spec.logger,
    });
    const primary = spec.for === undefined ? [] : Array.isArray(spec.for) ? spec.for : [spec.for as Watch<K>];
    for (const w of [...primary, ...(spec.owns ?? []), ...(spec.watches ?? [])]) this.wire(w);
  }

  get name() {
    return this.controller.name;
  }

  get running() {
    return this.controller.running;
  }

  /** Look at a key now (no-op outside a term). */
  enqueue(key: K) {
    this.controller.enqueue(this.spec.key.encode(key));
  }

  /** Look at a key after `ms`. */
  enqueueAfter(key: K, ms: number) {
    this.controller.enqueueAfter(this.spec.key.encode(key), ms);
  }

  /** why each waiting key waits, as its last reconcile said */
  waitReasons(): Map<K, Reason> {
    const out = new Map<K, Reason>();
    for (const [text, reason] of this.controller.waitReasons()) {
      const key = this.spec.key.decode(text);
      if (key !== undefined) out.set(key, reason);
    }
    return out;
  }

  private wire(w: Watch<K>) {
    const touch = (view: unknown, change: Change) => {
      const keys = w.keys(view, change);
      if (keys === undefined || keys === false) return;
      for (const k of Array.isArray(keys) ? (keys as readonly K[]) : [keys as K]) this.enqueue(k);
    };
    w.source.on({
      add: (v) => touch(v, 'add'),
      update: (v) => touch(v, 'update'),
      delete: (v) => touch(v, 'delete'),
    });
  }
}
