// Registering Palisade's webhooks on a cell's cluster: the deletion webhook, the NodeFence and
// FencePolicy webhooks (one configuration, a path each) and, once per cluster, the leader-epoch
// check. The API servers call the Service when one is set, else the shared url, else this
// replica's own listener; the caBundle is the certificate served now.
import type * as k8s from '@kubernetes/client-node';
import { FENCE_WEBHOOK_PATHS, fenceWebhookConfiguration } from '../fencing/approvalWebhook.js';
import type { ClusterSpec } from '../kube/connection.js';
import { epochWebhookConfiguration } from '../leader/epochWebhook.js';
import type { WebhookPath } from '../webhook/handler.js';
import type { WebhookServer } from '../webhook/listener.js';
import { applyWebhookConfiguration, webhookConfiguration } from './register.js';

export interface WebhookAddress {
  /** https://host:port the API servers call when no Service is set */
  base: string;
  service?: { namespace: string; name: string; port: number };
}

/** The clientConfig of one path of one cell. */
export function clientConfigOf(
  a: WebhookAddress,
  kind: WebhookPath,
  cell: string,
): k8s.AdmissionregistrationV1WebhookClientConfig {
  const s = a.service;
  return s
    ? { service: { namespace: s.namespace, name: s.name, port: s.port, path: `/${kind}/${cell}` } }
    : { url: `${a.base}/${kind}/${cell}` };
}

/** A configuration pointed at this address (each of its webhooks at its own path), caBundle kept. */
function withClient(
  a: WebhookAddress,
  c: k8s.V1ValidatingWebhookConfiguration,
  kind: WebhookPath,
  cell: string,
) {
  // palisade-nodefences holds two webhooks, each with its own path
  for (const w of c.webhooks ?? [])
    w.clientConfig = {
      ...clientConfigOf(a, FENCE_WEBHOOK_PATHS[w.name] ?? kind, cell),
      caBundle: w.clientConfig.caBundle,
    };
  return c;
}

/** Registers cells' webhooks; the epoch check once per cluster (cells on one cluster share its Lease). */
export function webhookRegistration(a: WebhookAddress) {
  const epochsOn = new Set<string>();
  return {
    async register(c: { id: string; cluster: ClusterSpec }, webhook: WebhookServer) {
      await webhook.whenListening();
      const caPem = webhook.caPem;
      const cell = encodeURIComponent(c.id);
      const kc = c.cluster.kc;
      await applyWebhookConfiguration(kc, withClient(a, webhookConfiguration('', caPem), 'admission', cell));
      await applyWebhookConfiguration(
        kc,
        withClient(a, fenceWebhookConfiguration('', caPem), 'fences', cell),
      );
      if (epochsOn.has(c.cluster.id)) return;
      epochsOn.add(c.cluster.id);
      await applyWebhookConfiguration(
        kc,
        withClient(a, epochWebhookConfiguration('', caPem), 'epochs', cell),
      );
    },
  };
}
