// Which clusters deletion protection works on (palisade.yaml protection.core and .cells, each
// named by kubeconfig context or cluster ID), and, per cluster, which webhook configurations
// carry Palisade's CA: the ones it registers itself, else the ones palisade.yaml names.
import type { z } from 'zod';
import type { protectionSchema, WebhookCertificates } from '../config/schema.js';
import type { ClusterSpec } from '../kube/connection.js';
import { EPOCH_WEBHOOK_CONFIG } from '../leader/epochWebhook.js';
import { FENCE_WEBHOOK_CONFIG } from '../fencing/approvalWebhook.js';
import type { BundleTarget } from './certs/bundles.js';
import type { CellSpec } from './loops.js';
import { WEBHOOK_NAME } from './register.js';

type Config = z.output<typeof protectionSchema>;

/** The core cluster (first, unless named) and the cells (one per cluster, unless listed). */
export function protectionTopology(cfg: Config, clusters: readonly ClusterSpec[]) {
  const byContext = (ctx: string, field: string) => {
    const c = clusters.find((x) => x.context === ctx || x.id === ctx);
    if (!c)
      throw new Error(
        `protection.${field}: no cluster with context "${ctx}" (have ${clusters.map((x) => x.context).join(', ')})`,
      );
    return c;
  };
  const core = cfg.core ? byContext(cfg.core, 'core') : clusters[0];
  const cells: CellSpec[] = (cfg.cells ?? clusters.map((c) => ({ id: c.context, context: c.context }))).map(
    (c, i) => ({ id: c.id, cluster: byContext(c.context, `cells[${i}].context`) }),
  );
  return { core, cells };
}

/**
 * Whether Palisade registers a cell's webhook configurations itself (the embedded cluster, unless
 * cert-manager injects the CA or palisade.yaml says), and per cluster the configurations whose
 * caBundle a self-managed leader keeps equal to its CA.
 */
export function caBundleTargets(cfg: Config, certs: WebhookCertificates, cells: readonly CellSpec[]) {
  const registers = (c: CellSpec) =>
    cfg.webhook.register ?? (certs.mode !== 'cert-manager' && c.cluster.infra !== undefined);
  const targets = new Map<string, BundleTarget>();
  for (const c of cells) {
    const names = registers(c)
      ? [WEBHOOK_NAME, FENCE_WEBHOOK_CONFIG, EPOCH_WEBHOOK_CONFIG]
      : cfg.webhook.configurations;
    let t = targets.get(c.cluster.id);
    if (!t) targets.set(c.cluster.id, (t = { cluster: c.cluster.id, kc: c.cluster.kc, names: [] }));
    for (const name of names) if (!t.names.includes(name)) t.names.push(name);
  }
  return { registers, targets: [...targets.values()] };
}
