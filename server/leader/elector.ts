// One leader per cluster for Palisade's controller loops, on a coordination.k8s.io Lease (the
// way kube-controller-manager elects its leader): try every retry period; the leader renews with
// a write conditional on the Lease's resourceVersion, so two consoles can never both win; a
// leader that cannot renew within the renew deadline stops leading before its Lease can expire
// for the others; stopping releases the Lease so a successor takes over at once. The rule itself
// is pure (lib/leader/lease.ts).
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
}

export interface LeaderState {
  leading: boolean;
  /** who holds the Lease as last seen ('' when free or unknown) */
  holder: string;
  identity: string;
  lease: string;
  lastError?: string;
}

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

  state(): LeaderState {
    return {
      leading: this.leading,
      holder: this.holder,
      identity: this.identity,
      lease: `${this.o.namespace}/${this.o.name}`,
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
      const lease = await this.read();
      const record = lease && recordOf(lease);
      this.observed = observe(this.observed, record, now);
      const step = judgeLease(record, this.observed, this.identity, now);
      if (step.kind === 'follow') {
        if (step.holder !== this.holder) this.log.debug({ holder: step.holder || undefined }, 'following');
        this.holder = step.holder;
        this.setLeading(false);
      } else {
        await this.take(lease, step.kind, now);
        this.lastRenewal = now;
        this.holder = this.identity;
        this.setLeading(true);
      }
      this.lastError = undefined;
    } catch (e) {
      // 409: another console wrote first; it leads (or we learn so on the next read)
      const before = this.lastError;
      this.lastError = isConflict(e) ? undefined : errorText(e);
      // said once per cause, not every retry period (a console without RBAC on Leases retries for ever)
      if (this.lastError && this.lastError !== before)
        this.log.warn({ err: this.lastError }, 'leader election failed; retrying');
      if (this.leading && Date.now() - this.lastRenewal > this.deadlineMs) this.setLeading(false);
      if (isConflict(e) && !this.leading) this.holder = '';
    }
  }

  private async take(lease: k8s.V1Lease | undefined, kind: 'create' | 'renew' | 'acquire', now: number) {
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
      return;
    }
    const s = lease.spec ?? {};
    lease.spec =
      kind === 'renew'
        ? { ...s, renewTime: t, leaseDurationSeconds: this.durationS }
        : this.spec(t, t, (s.leaseTransitions ?? 0) + 1);
    await this.write(lease);
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
    this.log.info({ identity: this.identity }, leading ? 'leading' : 'no longer leading');
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
