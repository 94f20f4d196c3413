// The controller runtime's and leader election's Prometheus metrics (served on /metrics beside
// protection's). One registry per runtime, so tests that start several never collide on names.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export function runtimeMetrics() {
  const registry = new Registry();
  const r = [registry];
  return {
    registry,
    isLeader: new Gauge({
      name: 'palisade_leader_is_leader',
      help: "1 while this process holds the cluster's controller Lease and runs the loops, else 0",
      labelNames: ['cluster', 'lease'] as const,
      registers: r,
    }),
    epoch: new Gauge({
      name: 'palisade_leader_epoch',
      help: "The Lease's leaseTransitions when this process acquired it (the epoch); -1 while not leading",
      labelNames: ['cluster', 'lease'] as const,
      registers: r,
    }),
    renewSeconds: new Histogram({
      name: 'palisade_leader_lease_renew_duration_seconds',
      help: 'Time an acquire or renew write of the controller Lease took, by outcome (ok, error)',
      labelNames: ['cluster', 'outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: r,
    }),
    leaderChanges: new Counter({
      name: 'palisade_leader_transitions_total',
      help: 'Times this process started (leading) or stopped (following) running the loops',
      labelNames: ['cluster', 'to'] as const,
      registers: r,
    }),
    staleWritesRefused: new Counter({
      name: 'palisade_leader_stale_writes_refused_total',
      help: "Leader writes this replica's webhook refused because their epoch was older than the Lease's",
      labelNames: ['cluster', 'lease', 'epoch'] as const,
      registers: r,
    }),
    epochReviews: new Counter({
      name: 'palisade_leader_epoch_reviews_total',
      help: "Writes the API server sent to this replica's leader-epoch webhook, by resource and whether they carried a leader's epoch (leader_write)",
      labelNames: ['cluster', 'resource', 'leader_write'] as const,
      registers: r,
    }),
    queueDepth: new Gauge({
      name: 'palisade_controller_queue_depth',
      help: 'Keys waiting for a worker, per loop',
      labelNames: ['cluster', 'controller'] as const,
      registers: r,
    }),
    queueWaiting: new Gauge({
      name: 'palisade_controller_queue_delayed',
      help: 'Keys waiting for their requeueAfter or backoff delay, per loop',
      labelNames: ['cluster', 'controller'] as const,
      registers: r,
    }),
    reconcileSeconds: new Histogram({
      name: 'palisade_controller_reconcile_duration_seconds',
      help: 'Time one reconcile took, per loop and result (done, requeue, error)',
      labelNames: ['cluster', 'controller', 'result'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: r,
    }),
    reconcileErrors: new Counter({
      name: 'palisade_controller_reconcile_errors_total',
      help: 'Reconciles that threw (retried with per-key backoff), per loop',
      labelNames: ['cluster', 'controller'] as const,
      registers: r,
    }),
    requeues: new Counter({
      name: 'palisade_controller_requeues_total',
      help: 'Reconciles that asked to look again later, per loop and typed reason',
      labelNames: ['cluster', 'controller', 'reason'] as const,
      registers: r,
    }),
  };
}

export type RuntimeMetrics = ReturnType<typeof runtimeMetrics>;
