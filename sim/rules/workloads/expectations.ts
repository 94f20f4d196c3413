// ControllerExpectations: after a controller creates or deletes pods it must not act
// on its cache again until the cache has seen those writes, or it would create twice.
// Creations are counted (generateName: the names are not known up front), deletions
// are tracked by pod key. Stale expectations expire so a lost event cannot wedge a key.
interface Pending {
  adds: number;
  deletes: Set<string>;
  since: number;
}

export class Expectations {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly ttlMs = 30_000) {}

  private entry(key: string, now: number): Pending {
    let e = this.pending.get(key);
    if (!e) this.pending.set(key, (e = { adds: 0, deletes: new Set(), since: now }));
    e.since = now;
    return e;
  }

  expectCreations(key: string, n: number, now = Date.now()) {
    this.entry(key, now).adds += n;
  }

  expectDeletions(key: string, podKeys: string[], now = Date.now()) {
    const e = this.entry(key, now);
    for (const k of podKeys) e.deletes.add(k);
  }

  creationObserved(key: string) {
    const e = this.pending.get(key);
    if (e && e.adds > 0) e.adds--;
  }

  deletionObserved(key: string, podKey: string) {
    this.pending.get(key)?.deletes.delete(podKey);
  }

  satisfied(key: string, now = Date.now()): boolean {
    const e = this.pending.get(key);
    if (!e) return true;
    if ((e.adds <= 0 && e.deletes.size === 0) || now - e.since > this.ttlMs) {
      this.pending.delete(key);
      return true;
    }
    return false;
  }

  /** ms until the expectations of key expire (to schedule a recheck). */
  expiresIn(key: string, now = Date.now()): number {
    const e = this.pending.get(key);
    return e ? Math.max(0, e.since + this.ttlMs - now + 1) : 0;
  }

  forget(key: string) {
    this.pending.delete(key);
  }
}
