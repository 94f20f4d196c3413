// The webhook certificate's metrics, in protection's registry (served on /metrics).
import { Counter, Gauge, type Registry } from 'prom-client';

export function certificateMetrics(registry: Registry) {
  const r = [registry];
  return {
    expiry: new Gauge({
      name: 'palisade_webhook_certificate_expiry_timestamp_seconds',
      help: 'When the certificate this replica serves expires (certificate="serving"), and the earliest-expiring CA of its bundle (certificate="ca"), in Unix seconds',
      labelNames: ['certificate'] as const,
      registers: r,
    }),
    reloads: new Counter({
      name: 'palisade_webhook_certificate_reloads_total',
      help: "Times this replica loaded a new serving certificate from the Secret, by result (ok, error: the Secret's pair did not load and the one before is still served)",
      labelNames: ['result'] as const,
      registers: r,
    }),
    rotations: new Counter({
      name: 'palisade_webhook_certificate_rotations_total',
      help: 'Writes of the self-managed certificate controller (leader only), by action (create, issue-serving, add-ca, drop-cas, patch-ca-bundle) and reason',
      labelNames: ['action', 'reason'] as const,
      registers: r,
    }),
  };
}

export type CertificateMetrics = ReturnType<typeof certificateMetrics>;
