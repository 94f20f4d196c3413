// Deletion protection's Prometheus metrics (served on /metrics). One registry per
// protection service, so tests that start several never collide on metric names.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export function protectionMetrics() {
  const registry = new Registry();
  const r = [registry];
  return {
    registry,
    admissions: new Counter({
      name: 'palisade_protection_admissions_total',
      help: 'Admission reviews for protected pods by result (allowed, denied, retry, error) and code',
      labelNames: ['cell', 'result', 'code', 'dry_run'] as const,
      registers: r,
    }),
    admissionSeconds: new Histogram({
      name: 'palisade_protection_admission_duration_seconds',
      help: 'Time the webhook took to answer an AdmissionReview',
      labelNames: ['cell', 'protected'] as const,
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: r,
    }),
    batchSize: new Histogram({
      name: 'palisade_protection_batch_size',
      help: 'Requests judged together in one RetryBatch round',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: r,
    }),
    statusWrites: new Counter({
      name: 'palisade_protection_status_writes_total',
      help: 'PodProtector status writes by writer (webhook, aggregator, generator) and outcome (ok, conflict, error)',
      labelNames: ['writer', 'outcome'] as const,
      registers: r,
    }),
    reconciles: new Counter({
      name: 'palisade_protection_aggregator_reconciles_total',
      help: 'Aggregator reconciles by cell and outcome (written, unchanged, error)',
      labelNames: ['cell', 'outcome'] as const,
      registers: r,
    }),
    lag: new Gauge({
      name: 'palisade_protection_admission_lag',
      help: 'Deletions admitted but not yet aggregated, per protector',
      labelNames: ['namespace', 'protector'] as const,
      registers: r,
    }),
    heartbeats: new Counter({
      name: 'palisade_protection_update_trigger_heartbeats_total',
      help: 'Update-trigger heartbeats by cell and outcome',
      labelNames: ['cell', 'outcome'] as const,
      registers: r,
    }),
    refusedCallers: new Counter({
      name: 'palisade_webhook_refused_callers_total',
      help: 'Connections and requests the admission webhook refused before reading a review, by reason (no-certificate, untrusted-certificate, name-not-allowed, wrong-cell, tls-handshake)',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    enforced: new Gauge({
      name: 'palisade_webhook_enforced',
      help: 'On the leader, per cell: 1 while the pod-deletion webhook has the configured failurePolicy and the last self-probe through the API server reached a replica, else 0',
      labelNames: ['cell'] as const,
      registers: r,
    }),
    probes: new Counter({
      name: 'palisade_webhook_probes_total',
      help: "The leader's self-probes through the API server by cell and outcome (reached, unauthenticated, unreachable, not-called, error)",
      labelNames: ['cell', 'outcome'] as const,
      registers: r,
    }),
    generator: new Counter({
      name: 'palisade_protection_generator_actions_total',
      help: 'Generator actions (create, sync, delete, dangling, remove-cells)',
      labelNames: ['action'] as const,
      registers: r,
    }),
  };
}

export type ProtectionMetrics = ReturnType<typeof protectionMetrics>;
