// Palisade's one webhook listener (server/webhook/) with a handler per webhook it serves:
// deletions (the PodProtector floor), NodeFence approvals and FencePolicy writes (each judged
// for the cell's own cluster, with Palisade's credentials there), and the leader epochs.
import * as k8s from '@kubernetes/client-node';
import { DEFAULT_CREDENTIALS_NAMESPACE } from '../config/schema.js';
import { handleFenceReview, subjectAccess } from '../fencing/approvalWebhook.js';
import { handlePolicyReview, policySubjectAccess, selfOn } from '../fencing/policyWebhook.js';
import { epochReviews } from '../leader/epochWebhook.js';
import { component, type Logger } from '../log.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import type { ClientTrust } from '../webhook/clientAuth.js';
import { type ServingPair, startWebhook } from '../webhook/listener.js';
import type { CellSpec } from './loops.js';
import type { ProtectionMetrics } from './metrics.js';
import { admissionHandler, type CellClient, type ReviewDeps } from './review.js';

export async function startProtectionWebhook(o: {
  cells: readonly CellSpec[];
  admission: ReviewDeps['admission'];
  metrics: ProtectionMetrics;
  runtime: ControllerRuntime;
  /** palisade.yaml fencing.credentialsNamespaces, resolved: what the FencePolicy webhook allows */
  credentialsNamespaces?: readonly string[];
  port: number;
  host: string;
  /** the names its serving certificate carries */
  names: string[];
  /** undefined: a CA made now; null: none yet (certs/ gives one) */
  serving: ServingPair | null | undefined;
  clientAuth: ClientTrust;
  logger: Logger;
}) {
  const { cells, runtime } = o;
  const cellClients = new Map<string, CellClient>(
    cells.map((c) => [c.id, { id: c.id, core: c.cluster.kc.makeApiClient(k8s.CoreV1Api) }]),
  );
  const fenceAccess = new Map(cells.map((c) => [c.id, subjectAccess(c.cluster.kc)]));
  // FencePolicy writes are judged the same way: the verbs pause / configure, and the agent rule
  const policyReviews = new Map(
    cells.map((c) => [
      c.id,
      {
        access: policySubjectAccess(c.cluster.kc),
        isSelf: selfOn(c.cluster.kc),
        credentialsNamespaces: o.credentialsNamespaces ?? [DEFAULT_CREDENTIALS_NAMESPACE],
      },
    ]),
  );
  // what judges a deletion's review: the listener's handler and ProtectionService.review()
  const reviewDeps: ReviewDeps = {
    admission: o.admission,
    cells: cellClients,
    metrics: o.metrics,
    log: component('webhook', {}, o.logger),
    identity: runtime.identity,
  };
  const webhook = await startWebhook({
    handlers: {
      admission: admissionHandler(reviewDeps),
      fences: { review: (text, cellId) => handleFenceReview(text, fenceAccess.get(cellId)!) },
      fencepolicies: { review: (text, cellId) => handlePolicyReview(text, policyReviews.get(cellId)!) },
      epochs: epochReviews({
        cells: [...cells],
        election: runtime.election,
        metrics: runtime.metrics,
        identity: runtime.identity,
        logger: o.logger,
      }),
    },
    cells: new Set(cellClients.keys()),
    onRefused: (reason) => o.metrics.refusedCallers.inc({ reason }),
    port: o.port,
    host: o.host,
    hosts: o.names,
    serving: o.serving,
    clientAuth: o.clientAuth,
    logger: o.logger,
  });
  return { webhook, reviewDeps };
}
