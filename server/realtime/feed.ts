// One room's stream (one kind in one cluster): changes are coalesced until the next
// flush into one Delta (the latest view per key wins; an upsert then a delete is just a
// delete), and recent deltas are kept so a client that reconnects can be sent only what
// it missed. Pure in-memory; the hub decides when to flush and whom to send to.
import { randomUUID } from 'node:crypto';
import type { ClusterId, Delta, Kind, Snapshot } from '../../lib/console/protocol.js';

export interface FeedLimits {
  /** how many recent deltas to keep for resuming */
  maxDeltas?: number;
  /** and at most this many items across them, so a burst cannot pin memory */
  maxItems?: number;
}

export class RoomFeed<T> {
  // seq starts at the wall clock so a client resuming against a restarted server never
  // matches a number the new server gave out for different state (<= 10 deltas a second
  // can never catch up with the clock)
  private current = Date.now();
  /** this feed's numbering: replicas started together could otherwise hand out the same seqs */
  readonly epoch = randomUUID();
  private readonly upserts = new Map<string, T>();
  private readonly deletes = new Set<string>();
  private readonly history: Delta<T>[] = [];
  private historyItems = 0;

  constructor(
    readonly cluster: ClusterId,
    readonly kind: Kind,
    private readonly items: () => T[],
    private readonly limits: FeedLimits = {},
  ) {}

  get seq() {
    return this.current;
  }

  change(key: string, view: T | undefined) {
    if (view === undefined) {
      this.upserts.delete(key);
      this.deletes.add(key);
    } else {
      this.deletes.delete(key);
      this.upserts.set(key, view);
    }
  }

  /** The coalesced delta of everything since the last flush, if anything changed. */
  flush(): Delta<T> | undefined {
    if (this.upserts.size === 0 && this.deletes.size === 0) return undefined;
    const delta: Delta<T> = {
      cluster: this.cluster,
      kind: this.kind,
      fromSeq: this.current,
      seq: ++this.current,
      upserts: [...this.upserts.values()],
      deletes: [...this.deletes],
    };
    this.upserts.clear();
    this.deletes.clear();
    this.remember(delta);
    return delta;
  }

  private remember(delta: Delta<T>) {
    const size = (d: Delta<T>) => d.upserts.length + d.deletes.length;
    this.history.push(delta);
    this.historyItems += size(delta);
    const maxDeltas = this.limits.maxDeltas ?? 600;
    const maxItems = this.limits.maxItems ?? 50_000;
    while (this.history.length > maxDeltas || (this.history.length > 1 && this.historyItems > maxItems))
      this.historyItems -= size(this.history.shift()!);
  }

  /**
   * Everything the client needs after it applied `seq`. Changes not flushed yet are in
   * the snapshot's items and will come again in the next delta: re-applying them is
   * harmless (upserts and deletes are idempotent).
   */
  snapshot(): Snapshot<T> {
    return {
      cluster: this.cluster,
      kind: this.kind,
      epoch: this.epoch,
      seq: this.current,
      items: this.items(),
    };
  }

  /**
   * The deltas after `seq`, or undefined when they are no longer all held or `seq` is another
   * feed's (a client back from another replica, or from before a restart).
   */
  since(seq: number, epoch?: string): Delta<T>[] | undefined {
    if (epoch !== undefined && epoch !== this.epoch) return undefined;
    if (seq === this.current) return [];
    const i = this.history.findIndex((d) => d.fromSeq === seq);
    return i < 0 ? undefined : this.history.slice(i);
  }
}
