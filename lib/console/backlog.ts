// When a browser's socket has fallen behind the live deltas (the hub then stops sending it
// deltas and, once it drained, sends one snapshot instead). The measure is its outgoing queue
// (engine.io's packets plus what the websocket still holds, about a KiB a packet), less what its
// last snapshot put there: a snapshot of 150 000 pods is some 50 000 KiB that take the browser
// seconds to take in, and counting them made every socket "slow" at once, so the next delta
// marked it behind and the next drain sent the whole snapshot again, every few seconds, for as
// long as the map stayed open (the server's RSS went from 0.6 to 1.8 GiB). The queue is first in,
// first out: what was queued when the snapshot went is drained before any delta queued after it,
// so until the queue shrinks below that mark, only what it grows beyond the mark is deltas.
export class Backlog {
  private readonly marks = new Map<string, number>();

  /** A snapshot was just queued for socket `id`, whose queue is now `queued`. */
  snapshotSent(id: string, queued: number) {
    if (queued > 0) this.marks.set(id, queued);
    else this.marks.delete(id);
  }

  /** Whether socket `id` holds more than `limit` queued beyond what its last snapshot put there. */
  slow(id: string, queued: number, limit: number): boolean {
    const mark = Math.min(this.marks.get(id) ?? 0, queued);
    if (mark > 0) this.marks.set(id, mark);
    else this.marks.delete(id);
    return queued - mark > limit;
  }

  forget(id: string) {
    this.marks.delete(id);
  }
}
