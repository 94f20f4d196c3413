// One leader per cluster for Palisade's controller loops, on a coordination.k8s.io Lease (the
// way kube-controller-manager elects its leader): try every retry period; the leader renews with
// a write conditional on the Lease's resourceVersion, so two consoles can never both win; a
// leader that cannot renew within the renew deadline stops leading (a timer, so a hung request
// cannot delay it) before its Lease can expire for the others, and campaigns again; stopping
// releases the Lease so a successor takes over at once. The holder identity is unique per
// process start, so the Lease's leaseTransitions is the epoch: epoch() is its value when this
// process acquired the Lease, and every acquisition (even of a Lease still naming this process,
// after it stopped leading) counts a transition. The rule itself is pure (lib/leader/lease.ts).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import * as k8s from '@kubernetes/client-node';
import { judgeLease, type LeaseRecord, type Observed, observe } from '../../lib/leader/lease.js';
import { errorText, isConflict, isNotFound } from '../../lib/kube/errorText.js';
import { microTime } from '../../lib/protection/buckets.js';
import { component, type Logger } from '../log.js';

export interface ElectorOptions {
  kc: k8s.KubeConfig;
  namespace: string;
  name: string;
  identity?: string;
  /** how long a Lease not renewed stays someone's (default 15 s, client-go's default) */
  leaseDurationSeconds?: number;
  /** a leader that has not renewed for this long stops leading (default 10 s) */
  renewDeadlineMs?: number;
  /** how often to try to acquire or renew (default 2 s) */
  retryPeriodMs?: number;
  /** where its lines go (component 'leader', with the Lease): context such as { cluster } on it */
  logger?: Logger;
  /** told how long each acquire or renew write took and how it ended (metrics) */
  onRenew?: (seconds: number, outcome: 'ok' | 'error') => void;
}

/** A change of holder this process saw (the Leadership view's history). */
export interface Transition {
  at: string;
  holder: string;
  /** leaseTransitions as read with that holder */
  epoch: number;
}

export interface LeaderState {
  leading: boolean;
  /** who holds the Lease as last seen ('' when free or unknown) */
  holder: string;
  identity: string;
  lease: string;
  /** leaseTransitions when this process acquired the Lease (set while leading) */
  epoch?: number;
  /** leaseTransitions as last read */
  leaseTransitions?: number;
  /** when this process last acquired or renewed the Lease, and when it last read it */
  lastRenewTime?: string;
  lastObservedTime?: string;
  leaseDurationSeconds: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** changes of holder seen by this process, oldest first (at most 20) */
  transitions: Transition[];
  lastError?: string;
}

const MAX_TRANSITIONS = 20;

export class LeaseElector {
  readonly identity: string;
  private readonly api: k8s.CoordinationV1Api;
  private readonly durationS: number;
  private readonly deadlineMs: number;
  private readonly retryMs: number;
  private observed?: Observed;
  private lastRenewal = 0;
  private leading = false;
  private holder = '';
  private lastError?: string;
  private myEpoch?: number;
  private seenTransitions?: number;
  private lastObserved = 0;
  private readonly history: Transition[] = [];
  private deadline?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private running = false;
  private tickDone: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(leading: boolean) => void>();
  private readonly log: Logger;

  constructor(private readonly o: ElectorOptions) {
    this.identity = o.identity ?? `${hostname()}_${process.pid}_${randomUUID().slice(0, 8)}`;
    this.log = component('leader', { lease: `${o.namespace}/${o.name}` }, o.logger);
    this.api = o.kc.makeApiClient(k8s.CoordinationV1Api);
    this.durationS = o.leaseDurationSeconds ?? 15;
    this.deadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryMs = o.retryPeriodMs ?? 2_000;
  }

  onChange(cb: (leading: boolean) => void) {
    this.listeners.add(cb);
  }

  isLeader() {
    return this.leading;
  }

  /** The Lease's leaseTransitions when this process acquired it; undefined while not leading. */
  epoch(): number | undefined {
    return this.leading ? this.myEpoch : undefined;
  }

  state(): LeaderState {
    const iso = (ms: number) => (ms ? new Date(ms).toISOString() : undefined);
    return {
      leading: this.leading,
      holder: this.holder,
      identity: this.identity,
      lease: `${this.o.namespace}/${this.o.name}`,
      ...(this.leading ? { epoch: this.myEpoch } : {}),
      ...(this.lastRenewal ? { lastRenewTime: iso(this.lastRenewal) } : {}),
      ...(this.seenTransitions !== undefined ? { leaseTransitions: this.seenTransitions } : {}),
      ...(this.lastObserved ? { lastObservedTime: iso(this.lastObserved) } : {}),
      leaseDurationSeconds: this.durationS,
      renewDeadlineMs: this.deadlineMs,
      retryPeriodMs: this.retryMs,
      transitions: [...this.history],
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.loop();
  }

  private loop() {
    if (!this.running) return;
    this.tickDone = this.tick().finally(() => {
      if (this.running) this.timer = setTimeout(() => this.loop(), this.retryMs);
    });
  }

  /** Read the Lease live: still ours and renewed recently enough (before an irreversible step). */
  async confirm(): Promise<boolean> {
    if (!this.leading) return false;
    const lease = await this.read().catch(() => undefined);
    return lease?.spec?.holderIdentity === this.identity && Date.now() - this.lastRenewal < this.deadlineMs;
  }

  async stop() {
    this.running = false;
    clearTimeout(this.timer);
    clearTimeout(this.deadline);
    await this.tickDone;
    if (!this.leading) return;
    this.setLeading(false);
    // release, as client-go's ReleaseOnCancel: an empty holder lets a successor take over at once
    const lease = await this.read().catch(() => undefined);
    if (lease?.spec?.holderIdentity !== this.identity) return;
    lease.spec.holderIdentity = '';
    lease.spec.leaseDurationSeconds = 1;
    await this.write(lease).catch((e) => this.log.warn({ err: errorText(e) }, 'Lease not released'));
  }

  private async tick() {
    const now = Date.now();
    try {
      // no request may hold a tick past the renew deadline (a hung connection)
      const lease = await this.bounded(this.read());
      const record = lease && recordOf(lease);
      this.lastObserved = Date.now();
      if (record) this.saw(record.holder, record.transitions);
      this.observed = observe(this.observed, record, now);
      let step = judgeLease(record, this.observed, this.identity, now);
      // still named on the Lease, but this process stopped leading (it could not renew in
      // time): a new term, so a new epoch
      if (step.kind === 'renew' && !this.leading) step = { kind: 'acquire' };
      if (step.kind === 'follow') {
        if (step.holder !== this.holder) this.log.debug({ holder: step.holder || undefined }, 'following');
        this.holder = step.holder;
        this.setLeading(false);
      } else {
        const started = performance.now();
        let epoch: number;
        try {
          epoch = await this.bounded(this.take(lease, step.kind, now));
          this.o.onRenew?.((performance.now() - started) / 1000, 'ok');
        } catch (e) {
          this.o.onRenew?.((performance.now() - started) / 1000, 'error');
          throw e;
        }
        // a renewal that came back after its deadline passed is no longer leadership
        if (this.leading || step.kind !== 'renew') {
          // the Lease taken anew while this term still ran (released or expired under it, e.g.
          // by kubectl): a new epoch, so the old term ends and a new one begins with it
          if (this.leading && step.kind !== 'renew') this.setLeading(false);
          this.lastRenewal = now;
          this.holder = this.identity;
          if (!this.leading) this.myEpoch = epoch;
          this.saw(this.identity, epoch);
          this.setLeading(true);
          this.armDeadline();
        }
      }
      this.lastError = undefined;
    } catch (e) {
      // 409: another console wrote first; it leads (or we learn so on the next read)
      const before = this.lastError;
      this.lastError = isConflict(e) ? undefined : errorText(e);
      // said once per cause, not every retry period (a console without RBAC on Leases retries for ever)
      if (this.lastError && this.lastError !== before)
        this.log.warn({ err: this.lastError }, 'leader election failed; retrying');
      if (this.leading && Date.now() - this.lastRenewal >= this.deadlineMs) this.deadlinePassed();
      if (isConflict(e) && !this.leading) this.holder = '';
    }
  }

  /** Write the Lease as holder; returns its leaseTransitions (the epoch of this term). */
  private async take(
    lease: k8s.V1Lease | undefined,
    kind: 'create' | 'renew' | 'acquire',
    now: number,
  ): Promise<number> {
    // MicroTime: kube-apiserver parses exactly six fractional digits (a Date's ISO form has three)
    const t = microTime(now) as unknown as Date;
    if (kind === 'create' || !lease) {
      await this.api.createNamespacedLease({
        namespace: this.o.namespace,
        body: {
          metadata: { name: this.o.name, namespace: this.o.namespace },
          spec: this.spec(t, t, 0),
        },
      });
      return 0;
    }
    const s = lease.spec ?? {};
    lease.spec =
      kind === 'renew'
        ? { ...s, renewTime: t, leaseDurationSeconds: this.durationS }
        : this.spec(t, t, (s.leaseTransitions ?? 0) + 1);
    await this.write(lease);
    return lease.spec.leaseTransitions ?? 0;
  }

  /** A request that has not answered by the renew deadline counts as failed. */
  private bounded<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from the API server within ${this.deadlineMs} ms`)),
        this.deadlineMs,
      );
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }

  /** Leading ends when the renew deadline passes without a renewal, whatever the requests do. */
  private armDeadline() {
    clearTimeout(this.deadline);
    const left = this.lastRenewal + this.deadlineMs - Date.now();
    this.deadline = setTimeout(
      () => {
        if (this.leading && Date.now() - this.lastRenewal >= this.deadlineMs) this.deadlinePassed();
      },
      Math.max(0, left),
    );
    this.deadline.unref?.();
  }

  /**
   * Stop leading now without touching the Lease (it may be another's already: Palisade's
   * webhook refused a write of this epoch as stale); campaigning goes on as a follower.
   */
  stepDown(why: string) {
    if (!this.leading) return;
    this.log.warn(
      { identity: this.identity, epoch: this.myEpoch, why },
      'stepping down: stopping every loop',
    );
    this.lastRenewal = 0;
    this.setLeading(false);
  }

  /** The renew deadline passed without a renewal (the timer or a failed tick, whichever first). */
  private deadlinePassed() {
    this.log.warn(
      { renewDeadlineMs: this.deadlineMs, lastRenewTime: new Date(this.lastRenewal).toISOString() },
      'Lease not renewed within the renew deadline: stopping every loop',
    );
    this.setLeading(false);
  }

  private saw(holder: string, transitions: number) {
    this.seenTransitions = transitions;
    const last = this.history.at(-1);
    if (last && last.holder === holder && last.epoch === transitions) return;
    if (!holder && !last) return;
    this.history.push({ at: new Date().toISOString(), holder, epoch: transitions });
    if (this.history.length > MAX_TRANSITIONS) this.history.shift();
  }

  private spec(acquire: Date, renew: Date, transitions: number): k8s.V1LeaseSpec {
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.durationS,
      acquireTime: acquire,
      renewTime: renew,
      leaseTransitions: transitions,
    };
  }

  private read() {
    return this.api.readNamespacedLease({ name: this.o.name, namespace: this.o.namespace }).catch((e) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
  }

  /** a replace carries the resourceVersion read: a 409 if anyone wrote in between */
  private write(lease: k8s.V1Lease) {
    return this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body: lease });
  }

  private setLeading(leading: boolean) {
    if (this.leading === leading) return;
    this.leading = leading;
    if (!leading) clearTimeout(this.deadline);
    this.log.info(
      { identity: this.identity, epoch: this.myEpoch },
      leading ? 'leading' : 'no longer leading',
    );
    for (const cb of this.listeners) cb(leading);
  }
}

function recordOf(l: k8s.V1Lease): LeaseRecord {
  const s = l.spec ?? {};
  const renew = s.renewTime as unknown;
  return {
    holder: s.holderIdentity ?? '',
    durationSeconds: s.leaseDurationSeconds ?? 15,
    transitions: s.leaseTransitions ?? 0,
    renewTime: renew instanceof Date ? renew.toISOString() : (renew as string | undefined),
  };
}
