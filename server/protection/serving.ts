// The webhook's serving certificate, as startProtection sets it up: the pair it listens with
// first, the leader's certificate loop (self-managed only) and every replica's reload of the
// Secret, and what keeps a replica from being ready. Split out of service.ts so that the
// service's start reads as its steps.
import * as k8s from '@kubernetes/client-node';
import type { WebhookCertificates } from '../config/schema.js';
import type { ClusterSpec } from '../kube/connection.js';
import type { InformerRegistry } from '../kube/informer.js';
import { component, type Logger } from '../log.js';
import { ensureServingSecret, pairOf, readSecret } from '../webhook/servingSecret.js';
import type { WebhookServer } from '../webhook/listener.js';
import type { BundleTarget } from './certs/bundles.js';
import { CertificateController } from './certs/controller.js';
import type { CertificateMetrics } from './certs/metrics.js';
import { ServingSecretWatch } from './certs/reload.js';

type FromSecret = Exclude<WebhookCertificates, { mode: 'process' }>;

/**
 * The pair the listener starts with. Self-managed: the first replica to start makes the Secret
 * (what it holds may be due for a change the leader makes); cert-manager: whatever it wrote so
 * far (none yet: the webhook listens once it has); process: none (the listener makes its own).
 */
export async function initialServingPair(
  certs: WebhookCertificates,
  core: ClusterSpec,
  names: string[],
  log: Logger,
): Promise<ReturnType<typeof pairOf> | undefined> {
  if (certs.mode === 'self-managed')
    return pairOf(
      await ensureServingSecret(core.kc, certs.secret, names, {
        validity: certs.validity,
        caValidity: certs.ca.validity,
      }),
    );
  if (certs.mode !== 'cert-manager') return undefined;
  const pair = pairOf(await readSecret(core.kc.makeApiClient(k8s.CoreV1Api), certs.secret));
  if (!pair)
    log.warn(
      { secret: `${certs.secret.namespace}/${certs.secret.name}` },
      'waiting for cert-manager to write the serving Secret (ca.crt, tls.crt, tls.key): the webhook listens once it has',
    );
  return pair;
}

/**
 * The certificate's loop (leader only, self-managed: makes and rotates the Secret, keeps every
 * caBundle equal to ca.crt), made to be added to the manager (server/loops.ts), and every replica's reload of the Secret,
 * started. Nothing for a process-made certificate.
 */
export function servingCertificates(o: {
  certs: WebhookCertificates;
  core: ClusterSpec;
  registry: InformerRegistry;
  names: string[];
  targets: BundleTarget[];
  webhook: WebhookServer;
  metrics: CertificateMetrics;
  /** on the core cluster (the reload logs as component 'certificates', with its Secret) */
  logger: Logger;
}): { controller?: CertificateController; watch?: ServingSecretWatch } {
  if (o.certs.mode === 'process') return {};
  const certs: FromSecret = o.certs;
  const controller =
    certs.mode === 'self-managed'
      ? new CertificateController({
          kc: o.core.kc,
          ref: certs.secret,
          names: o.names,
          policy: {
            validity: certs.validity,
            renewBefore: certs.renewBefore,
            caValidity: certs.ca.validity,
            caRenewBefore: certs.ca.renewBefore,
            grace: certs.reloadDelay,
          },
          targets: o.targets,
          metrics: o.metrics,
          logger: o.logger,
        })
      : undefined;
  const watch = new ServingSecretWatch({
    registry: o.registry,
    ref: certs.secret,
    webhook: o.webhook,
    metrics: o.metrics,
    log: component('certificates', { secret: `${certs.secret.namespace}/${certs.secret.name}` }, o.logger),
    onChange: () => controller?.poke(),
  });
  if (o.webhook.serving) watch.gauge(o.webhook.serving);
  void watch.start();
  return { controller, watch };
}

/** Why this replica is not ready to answer reviews (empty: ready). */
export function notReadyOf(
  webhook: WebhookServer,
  certs: WebhookCertificates,
  watch: ServingSecretWatch | undefined,
): () => string[] {
  return () => {
    const out: string[] = [];
    if (!webhook.listening)
      out.push(
        certs.mode === 'process'
          ? 'the webhook is not listening'
          : `the webhook has no serving certificate yet (Secret ${certs.secret.namespace}/${certs.secret.name}, ${certs.mode})`,
      );
    if (watch && !watch.synced) out.push(`the watch of the serving Secret has not synced`);
    if (webhook.draining) out.push('the webhook is draining (stopping)');
    return out;
  };
}
