// The controller runtime's manager for one cluster, like controller-runtime's: one Lease for the
// controller role (coordination.k8s.io/v1, kube-system/palisade-controller by default) and the
// loops that run only while this process holds it. Every replica watches (the console's views
// and the loops' projections share one informer per kind); only the leader runs the loops. On
// acquiring, a new Term (its epoch = the Lease's leaseTransitions) starts every loop; when the
// Lease is lost or not renewed within the renew deadline, the term ends and every loop stops
// at once (the term's kubeconfigs refuse further requests), then the elector campaigns again.
import type * as k8s from '@kubernetes/client-node';
import { electedEvent } from '../../lib/leader/events.js';
import { LeaseElector } from '../leader/elector.js';
import { LeaseEventWriter } from '../leader/leaseEvents.js';
import { component, type Logger } from '../log.js';
import type { Controller } from './controller.js';
import { Loop, type LoopSpec } from './loop.js';
import { Term } from './gate.js';
import type { RuntimeMetrics } from './metrics.js';

export interface LeaderElection {
  namespace: string;
  name: string;
  leaseDurationSeconds: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's defaults (15 s / 10 s / 2 s), on Palisade's controller Lease */
export const DEFAULT_LEADER_ELECTION: LeaderElection = {
  namespace: 'kube-system',
  name: 'palisade-controller',
  leaseDurationSeconds: 15,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export interface ManagerOptions {
  cluster: string;
  kc: k8s.KubeConfig;
  election: LeaderElection;
  metrics: RuntimeMetrics;
  logger?: Logger;
  /** the holder identity (default hostname_pid_random: unique per process start) */
  identity?: string;
}

export class Manager {
  readonly elector: LeaseElector;
  readonly cluster: string;
  private readonly controllers: Controller<any>[] = [];
  private term: Term | undefined;
  private readonly listeners = new Set<(leading: boolean) => void>();
  private readonly log: Logger;
  private readonly lease: string;
  private started = false;
  private readonly events: LeaseEventWriter;

  constructor(private readonly o: ManagerOptions) {
    this.cluster = o.cluster;
    this.lease = `${o.election.namespace}/${o.election.name}`;
    const onCluster = (o.logger ?? component('runtime')).child({ cluster: o.cluster });
    this.log = component('runtime', {}, onCluster);
    const labels = { cluster: o.cluster, lease: this.lease };
    o.metrics.isLeader.set(labels, 0);
    o.metrics.epoch.set(labels, -1);
    this.elector = new LeaseElector({
      kc: o.kc,
      namespace: o.election.namespace,
      name: o.election.name,
      identity: o.identity,
      leaseDurationSeconds: o.election.leaseDurationSeconds,
      renewDeadlineMs: o.election.renewDeadlineMs,
      retryPeriodMs: o.election.retryPeriodMs,
      logger: onCluster,
      onRenew: (seconds, outcome) => o.metrics.renewSeconds.observe({ cluster: o.cluster, outcome }, seconds),
    });
    this.events = new LeaseEventWriter(o.kc, this.log);
    this.elector.onChange((leading) => (leading ? this.begin() : this.end()));
  }

  /**
   * The builder: build a loop (server/runtime/loop.ts) and add it, for a program that owns its
   * manager. Palisade's own loops are built by their capability and added by server/loops.ts.
   */
  controller<K, Reason extends string>(spec: LoopSpec<K, Reason>): Loop<K, Reason> {
    const loop = new Loop(spec);
    this.add(loop);
    return loop;
  }

  /**
   * Add a loop; it runs whenever this process leads (at once, if it leads now). Palisade's own
   * loops are added by server/loops.ts only.
   */
  add(loop: Controller<any> | Loop<any, any>) {
    const c = loop instanceof Loop ? loop.controller : loop;
    c.instrument(this.o.metrics, this.o.cluster);
    c.onStaleEpoch = (term) => {
      if (this.term === term) this.elector.stepDown(`a write of epoch ${term.epoch} was refused as stale`);
    };
    this.controllers.push(c);
    if (this.term?.active) void c.run(this.term);
  }

  /** Take a loop off (it stops now). */
  remove(loop: Controller<any> | Loop<any, any>) {
    const c = loop instanceof Loop ? loop.controller : loop;
    const i = this.controllers.indexOf(c);
    if (i >= 0) this.controllers.splice(i, 1);
    c.halt();
  }

  get loops(): readonly Controller<any>[] {
    return this.controllers;
  }

  /** told when this process starts or stops running the loops */
  onChange(cb: (leading: boolean) => void) {
    this.listeners.add(cb);
  }

  isLeader() {
    return this.term?.active === true;
  }

  /** the current term (epoch, kubeconfigs), while leading */
  currentTerm(): Term | undefined {
    return this.term?.active ? this.term : undefined;
  }

  /** the Lease's leaseTransitions when this process acquired it (undefined while not leading) */
  epoch(): number | undefined {
    return this.currentTerm()?.epoch;
  }

  start() {
    if (this.started) return;
    this.started = true;
    this.elector.start();
  }

  /** Stop every loop, then release the Lease so another replica takes over at once. */
  async stop() {
    this.end();
    this.started = false;
    await this.elector.stop();
  }

  private begin() {
    const epoch = this.elector.epoch() ?? 0;
    this.term?.end();
    const term = new Term(epoch, this.lease, () => this.elector.confirm());
    this.term = term;
    const labels = { cluster: this.o.cluster, lease: this.lease };
    this.o.metrics.isLeader.set(labels, 1);
    this.o.metrics.epoch.set(labels, epoch);
    this.o.metrics.leaderChanges.inc({ cluster: this.o.cluster, to: 'leading' });
    this.log.info(
      { lease: this.lease, epoch, loops: this.controllers.map((c) => c.name) },
      'leading: running the loops',
    );
    const { namespace, name } = this.o.election;
    this.events.record(electedEvent({ namespace, name }, this.elector.identity, epoch, new Date()));
    for (const c of this.controllers) void c.run(term);
    for (const l of this.listeners) l(true);
  }

  /** every loop at once, before anything else can run */
  private end() {
    const term = this.term;
    if (!term) return;
    this.term = undefined;
    term.end();
    for (const c of this.controllers) c.halt();
    const labels = { cluster: this.o.cluster, lease: this.lease };
    this.o.metrics.isLeader.set(labels, 0);
    this.o.metrics.epoch.set(labels, -1);
    this.o.metrics.leaderChanges.inc({ cluster: this.o.cluster, to: 'following' });
    this.log.info({ lease: this.lease, epoch: term.epoch }, 'not leading: every loop stopped');
    for (const l of this.listeners) l(false);
  }
}
