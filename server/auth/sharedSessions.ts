// Sessions shared by every replica of the console through Kubernetes Secrets (sessionSecrets.ts):
// each replica mirrors them all from a watch and asks the API server directly for one it has not
// heard of yet (signed in a moment ago elsewhere), so a browser whose replica died carries on on
// another. Sign-out deletes the Secret before it answers, and every replica's watch ends its copy
// (and closes its sockets). Activity is written back at most once per touch interval, and every
// replica judges idleness with that much slack (lib/auth/sharedSession.ts). Expiry is collected
// by whichever replica notices first, with a delete conditional on the version it judged, so a
// session touched meanwhile survives. OIDC renewal happens on one replica only: the one whose
// claim wins the compare-and-swap on the Secret; the others see the renewed tokens through the
// watch (an identity provider revokes the grant when a refresh token is used twice).
import {
  claimDecision,
  endedReason,
  REFRESH_CLAIM_MS,
  type SessionRecord,
  sharedLimits,
  touchDue,
} from '../../lib/auth/sharedSession.js';
import type { SessionLimits } from '../../lib/auth/session.js';
import type { Logger } from '../log.js';
import type { SessionSecrets, Stored } from './sessionSecrets.js';
import { type EndReason, type Renewed, type Session, SessionStore } from './sessions.js';
import type { Principal } from './identity.js';

/** how long an unknown key is not asked for again (random cookies must not cost an API call each) */
const MISS_TTL_MS = 1_000;
const MAX_MISSES = 10_000;
/** how long an ended session's key is remembered: a watch event already in flight cannot revive it */
const TOMBSTONE_MS = 60_000;

const toRecord = (s: Session): SessionRecord => ({
  v: 1,
  method: s.method,
  credential: s.credential,
  principals: [...s.principals],
  createdAt: s.createdAt,
  lastSeenAt: s.lastSeenAt,
  ...(s.oidc ? { oidc: s.oidc } : {}),
});

export class SharedSessionStore extends SessionStore {
  /** the store's copy of each session: the version the next write is conditional on */
  private readonly stored = new Map<string, Stored>();
  private readonly misses = new Map<string, number>();
  /** keys with a write or a delete in flight from this replica: one at a time */
  private readonly busy = new Set<string>();
  /** keys ended here, until when: session ids are random, so no live session is ever refused for it */
  private readonly ended = new Map<string, number>();

  constructor(
    private readonly secrets: SessionSecrets,
    private readonly replica: string,
    private readonly log: Logger,
    limits: SessionLimits,
    now: () => number = Date.now,
  ) {
    super(limits, now, sharedLimits(limits));
    secrets.start({ put: (s) => void this.put(s), gone: (key, last) => this.gone(key, last) });
  }

  /** the first complete list of sessions is in */
  synced(): Promise<void> {
    return this.secrets.synced();
  }

  override async end(key: string, why: EndReason): Promise<void> {
    // the reason travels with the record only when the times cannot tell it
    if (why === 'refresh-failed')
      await this.secrets
        .modify(key, this.stored.get(key), (r) => ({ ...r, ended: why }))
        .catch(() => undefined);
    await this.secrets.remove(key);
    this.endHere(key, why);
  }

  override async renew(
    key: string,
    refresh: (oidc: Session['oidc']) => Promise<Renewed>,
    keep: (e: unknown) => boolean = () => false,
  ): Promise<boolean> {
    const at = this.now();
    const claimed = await this.secrets.modify(key, this.stored.get(key), (r) =>
      claimDecision(r, at) === 'claim'
        ? { ...r, refreshing: { by: this.replica, until: at + REFRESH_CLAIM_MS } }
        : undefined,
    );
    // renewed already, or another replica holds the claim: its result comes through the watch
    if (!claimed) return false;
    this.put(claimed);
    let renewed: Renewed;
    try {
      renewed = await refresh(claimed.record.oidc);
    } catch (e) {
      if (!keep(e)) {
        await this.end(key, 'refresh-failed');
        throw e;
      }
      // the provider was away: give the claim back, so whichever replica tries next may renew
      await this.secrets
        .modify(key, claimed, (r) =>
          r.refreshing?.by === this.replica ? { ...r, refreshing: undefined } : undefined,
        )
        .then((w) => w && this.put(w))
        .catch(() => undefined);
      throw e;
    }
    // the old refresh token is spent: the new one must be written, whatever else changed meanwhile
    const written = await this.secrets.modify(
      key,
      claimed,
      (r) => ({
        ...r,
        oidc: renewed.oidc,
        credential: renewed.credential ?? r.credential,
        principals: renewed.principals ? [...renewed.principals] : r.principals,
        refreshing: undefined,
      }),
      20,
    );
    if (written) this.put(written);
    return written !== undefined;
  }

  override sweep() {
    const now = this.now();
    for (const [k, until] of this.ended) if (until <= now) this.ended.delete(k);
    super.sweep();
  }

  override stop() {
    super.stop();
    void this.secrets.stop();
  }

  protected override async keep(s: Session): Promise<Session> {
    return this.put(await this.secrets.create(s.sessionKey, toRecord(s))) ?? s;
  }

  protected override async lookup(key: string): Promise<Session | undefined> {
    const here = this.sessions.get(key);
    // a watch that is whole has told us of every session but the newest few: ask for a miss;
    // a broken watch might have missed a sign-out: ask for every use until it is whole again
    if (here && this.secrets.healthy) return here;
    if (!here && (this.misses.get(key) ?? 0) > this.now()) return undefined;
    try {
      const st = await this.secrets.get(key);
      if (st) return this.put(st);
      this.stored.delete(key);
      if (here) this.endHere(key, 'signed-out');
      this.miss(key);
      return undefined;
    } catch (e) {
      // the API server is away: a session this replica knows stays usable until its own limits
      this.log.warn({ session: key.slice(0, 8), err: (e as Error).message }, 'session store unreachable');
      return here;
    }
  }

  protected override async expire(key: string, why: EndReason): Promise<void> {
    const st = this.stored.get(key);
    if (!st) return this.endHere(key, why);
    if (this.busy.has(key)) return;
    this.busy.add(key);
    try {
      // conditional: another replica that saw it used since has written a newer copy
      if ((await this.secrets.remove(key, st.rv)) === 'conflict') {
        const fresh = await this.secrets.get(key);
        if (fresh) this.put(fresh);
        return;
      }
      this.endHere(key, why);
    } catch (e) {
      this.log.warn(
        { session: key.slice(0, 8), err: (e as Error).message },
        'ending an expired session failed',
      );
    } finally {
      this.busy.delete(key);
    }
  }

  protected override used(key: string) {
    const st = this.stored.get(key);
    const s = this.sessions.get(key);
    if (!st || !s || this.busy.has(key) || !touchDue(st.record.lastSeenAt, s.lastSeenAt, this.limits)) return;
    this.busy.add(key);
    void this.secrets
      .modify(key, st, (r) => (s.lastSeenAt > r.lastSeenAt ? { ...r, lastSeenAt: s.lastSeenAt } : undefined))
      .then((w) => w && this.put(w))
      .catch((e) =>
        this.log.warn({ session: key.slice(0, 8), err: (e as Error).message }, 'session touch failed'),
      )
      .finally(() => this.busy.delete(key));
  }

  protected override async everyone(): Promise<[string, Map<string, Principal>][]> {
    const all = new Map(await super.everyone());
    for (const st of await this.secrets.list()) all.set(st.key, new Map(st.record.principals));
    return [...all];
  }

  protected override endHere(key: string, why: EndReason) {
    this.ended.set(key, this.now() + TOMBSTONE_MS);
    this.stored.delete(key);
    super.endHere(key, why);
  }

  /** The store's copy arrived (watch, read or own write): this replica's session follows it. */
  private put(st: Stored): Session | undefined {
    if (this.ended.has(st.key)) return undefined;
    this.stored.set(st.key, st);
    this.misses.delete(st.key);
    const r = st.record;
    const s = this.sessions.get(st.key);
    if (!s) {
      const made: Session = {
        sessionKey: st.key,
        method: r.method,
        credential: r.credential,
        principals: new Map(r.principals),
        createdAt: r.createdAt,
        lastSeenAt: r.lastSeenAt,
        ...(r.oidc ? { oidc: r.oidc } : {}),
      };
      this.sessions.set(st.key, made);
      return made;
    }
    // in place: sockets hold this object as their identity and act with a renewed credential at once
    s.credential = r.credential;
    s.principals = new Map(r.principals);
    s.oidc = r.oidc;
    s.lastSeenAt = Math.max(s.lastSeenAt, r.lastSeenAt);
    return s;
  }

  private gone(key: string, last: SessionRecord) {
    this.endHere(key, endedReason(last, this.now(), this.limits));
  }

  private miss(key: string) {
    if (this.misses.size >= MAX_MISSES) {
      const now = this.now();
      for (const [k, until] of this.misses) if (until <= now) this.misses.delete(k);
      if (this.misses.size >= MAX_MISSES) this.misses.clear();
    }
    this.misses.set(key, this.now() + MISS_TTL_MS);
  }
}
