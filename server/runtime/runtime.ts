// The controller runtime of one console: a Manager (one controller Lease, the loops it gates)
// per cluster that has loops, and their metrics. The console makes one and hands it to
// protection and fencing; a protection service started alone (tests) makes its own.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type * as k8s from '@kubernetes/client-node';
import type { ClusterId } from '../../lib/console/protocol.js';
import { type Logger, logger as rootLogger } from '../log.js';
import { DEFAULT_LEADER_ELECTION, type LeaderElection, Manager } from './manager.js';
import { type RuntimeMetrics, runtimeMetrics } from './metrics.js';

export interface RuntimeOptions {
  election?: Partial<LeaderElection>;
  logger?: Logger;
  /** the holder identity of every Lease of this runtime (default a new hostname_pid_random) */
  identity?: string;
}

/** unique per process start (and per runtime, for tests that run several consoles in one process) */
export const newIdentity = () => `${hostname()}_${process.pid}_${randomUUID().slice(0, 8)}`;

export class ControllerRuntime {
  readonly metrics: RuntimeMetrics = runtimeMetrics();
  readonly election: LeaderElection;
  /** the holder identity on every cluster's controller Lease */
  readonly identity: string;
  private readonly managers = new Map<ClusterId, Manager>();

  constructor(private readonly o: RuntimeOptions = {}) {
    this.election = { ...DEFAULT_LEADER_ELECTION, ...o.election };
    this.identity = o.identity ?? newIdentity();
  }

  /** The cluster's manager, made and started (campaigning) on first use. */
  manager(cluster: { id: ClusterId; kc: k8s.KubeConfig }): Manager {
    let m = this.managers.get(cluster.id);
    if (!m) {
      m = new Manager({
        cluster: cluster.id,
        kc: cluster.kc,
        election: this.election,
        metrics: this.metrics,
        logger: this.o.logger ?? rootLogger,
        identity: this.identity,
      });
      this.managers.set(cluster.id, m);
      m.start();
    }
    return m;
  }

  get(cluster: ClusterId): Manager | undefined {
    return this.managers.get(cluster);
  }

  all(): Manager[] {
    return [...this.managers.values()];
  }

  /** Every loop stops at once, then each Lease is released. */
  async stop() {
    await Promise.all(this.all().map((m) => m.stop()));
  }
}
