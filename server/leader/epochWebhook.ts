// The admission side of epoch fencing: every write to Palisade-owned state — NodeFences and
// their status, Incidents and their status, PodProtectors and their status, the taints on
// Nodes — is reviewed here (POST
// /epochs/<cellID> on Palisade's webhook listener). A write whose fieldManager names a leader's
// epoch (lib/leader/epoch.ts) is compared with the cluster's controller Lease, read live (not
// from a cache: a cache could be as stale as the paused leader); an older epoch is refused with
// both epochs named, counted, and told as an Event on the Lease. Writes that carry no epoch
// (people, kubectl, the webhook's own admission buckets that every replica writes) are not the
// leader's and pass. A Lease that cannot be read refuses the leader write: never let a possibly
// stale write through because of an error.
import type { Handler } from '../webhook/handler.js';
import * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import { type EpochLease, type EpochVerdict, judgeEpoch } from '../../lib/leader/epoch.js';
import { errorText } from '../../lib/kube/errorText.js';
import { STALE_EPOCH_CAUSE, staleWriteEvent } from '../../lib/leader/events.js';
import type { Logger } from '../log.js';
import type { RuntimeMetrics } from '../runtime/metrics.js';
import { LeaseEventWriter } from './leaseEvents.js';
import { admissionAnswer, admissionReview, parseReview } from '../webhook/review.js';

const review = admissionReview(
  z.object({
    uid: z.string().min(1),
    operation: z.string(),
    resource: z.object({ group: z.string(), resource: z.string() }).passthrough(),
    subResource: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    options: z.object({ fieldManager: z.string().optional() }).passthrough().nullish(),
    userInfo: z.object({ username: z.string().optional() }).passthrough().optional(),
  }),
);

/** The ValidatingWebhookConfiguration of the epoch check, on each cell's cluster. */
export const EPOCH_WEBHOOK_CONFIG = 'palisade-leader-epochs';

/**
 * Only a leader's writes carry an epoch (its fieldManager): every other write — people, kubectl,
 * the kubelet's node status, the admission buckets every replica writes — is let through by the
 * API server without a call (handleEpochReview would admit it anyway), so no Node UPDATE in the
 * cluster waits on Palisade but its own.
 */
export const EPOCH_MATCH_CONDITIONS: k8s.V1MatchCondition[] = [
  {
    name: 'leader-write',
    expression:
      "has(request.options) && has(request.options.fieldManager) && request.options.fieldManager.startsWith('palisade-leader-e')",
  },
];

export type StaleWrite = {
  verdict: Extract<EpochVerdict, { kind: 'stale' | 'malformed' }>;
  lease: EpochLease;
  what: string;
  user: string;
};

export interface EpochWebhookDeps {
  /** the cluster's controller Lease, read live */
  readLease(): Promise<EpochLease>;
  /** told of every refused write (metrics, an Event) */
  refused?(w: StaleWrite): void;
  /** told of every review that parsed (the resource, and whether it carried a leader's epoch) */
  reviewed?(r: { resource: string; leaderWrite: boolean }): void;
}

function answer(uid: string, allowed: boolean, message = '', stale = false) {
  // the cause reaches the writer in the API server's error Status (details are passed through):
  // the leader's runtime tells a stale-epoch refusal from any other without reading the text
  const details = stale
    ? { details: { causes: [{ reason: STALE_EPOCH_CAUSE, field: 'options.fieldManager', message }] } }
    : {};
  return admissionAnswer(uid, allowed ? undefined : { code: 409, reason: 'Conflict', message, ...details });
}

const REVIEWED = new Set([
  'nodes',
  'nodefences',
  'nodefences/status',
  'incidents',
  'incidents/status',
  'podprotectors',
  'podprotectors/status',
]);

/** One review: [HTTP status, body]. Malformed: 400. */
export async function handleEpochReview(text: string, deps: EpochWebhookDeps): Promise<[number, unknown]> {
  const parsed = parseReview(review, text);
  if (!parsed.ok) return parsed.answer;
  const req = parsed.review.request;
  const fieldManager = req.options?.fieldManager;
  const leaderWrite = !!fieldManager?.startsWith('palisade-leader-e');
  const resource = `${req.resource.resource}${req.subResource ? `/${req.subResource}` : ''}`;
  // the resources the configuration sends (a forged review's names never become metric labels)
  deps.reviewed?.({ resource: REVIEWED.has(resource) ? resource : 'other', leaderWrite });
  if (!leaderWrite) return [200, answer(req.uid, true)];
  let lease: EpochLease;
  try {
    lease = await deps.readLease();
  } catch (e) {
    return [
      200,
      answer(
        req.uid,
        false,
        `cannot read the controller Lease to check this leader write's epoch: ${errorText(e)}`,
      ),
    ];
  }
  const verdict = judgeEpoch(fieldManager, lease);
  if (verdict.kind === 'current' || verdict.kind === 'not-a-leader-write')
    return [200, answer(req.uid, true)];
  const r = req.resource;
  const what = `${req.operation} ${r.resource}${req.subResource ? `/${req.subResource}` : ''}${r.group ? `.${r.group}` : ''} ${req.namespace ? `${req.namespace}/` : ''}${req.name ?? ''}`;
  deps.refused?.({ verdict, lease, what, user: req.userInfo?.username ?? '' });
  return [200, answer(req.uid, false, verdict.message, true)];
}

/** The controller Lease of a cluster, read live with Palisade's own credentials. */
export function liveLease(kc: k8s.KubeConfig, namespace: string, name: string): () => Promise<EpochLease> {
  const api = kc.makeApiClient(k8s.CoordinationV1Api);
  return async () => {
    const l = await api.readNamespacedLease({ namespace, name });
    return {
      namespace,
      name,
      transitions: l.spec?.leaseTransitions ?? 0,
      holder: l.spec?.holderIdentity ?? '',
    };
  };
}

/**
 * What the leader writes and Palisade owns, reviewed for their epoch. Fail where only Palisade
 * writes (NodeFences are Fail already for approvals; protectors' status is the aggregator's);
 * Ignore where people write too (a protector made with kubectl, a cordon) so that a console
 * that is down does not block them: no replica answering means no newer leader to protect.
 */
export function epochWebhookConfiguration(url: string, caPem: string): k8s.V1ValidatingWebhookConfiguration {
  const hook = (name: string, rule: k8s.V1RuleWithOperations, failurePolicy: 'Fail' | 'Ignore') => ({
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy,
    timeoutSeconds: 10,
    clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
    rules: [rule],
    matchConditions: EPOCH_MATCH_CONDITIONS,
  });
  const ops = ['CREATE', 'UPDATE'];
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: EPOCH_WEBHOOK_CONFIG, labels: { 'app.kubernetes.io/managed-by': 'palisade' } },
    webhooks: [
      hook(
        'fence-epochs.palisade.dev',
        {
          apiGroups: ['palisade.dev'],
          apiVersions: ['*'],
          operations: ops,
          resources: ['nodefences', 'nodefences/status'],
          scope: 'Cluster',
        },
        'Fail',
      ),
      // the incident tracker's declarations, status and resolutions (the console's are people's)
      hook(
        'incident-epochs.palisade.dev',
        {
          apiGroups: ['palisade.dev'],
          apiVersions: ['*'],
          operations: ops,
          resources: ['incidents', 'incidents/status'],
          scope: 'Cluster',
        },
        'Fail',
      ),
      hook(
        'protector-status-epochs.palisade.dev',
        {
          apiGroups: ['podseidon.kubewharf.io'],
          apiVersions: ['*'],
          operations: ops,
          resources: ['podprotectors/status'],
          scope: 'Namespaced',
        },
        'Fail',
      ),
      hook(
        'protector-epochs.palisade.dev',
        {
          apiGroups: ['podseidon.kubewharf.io'],
          apiVersions: ['*'],
          operations: ops,
          resources: ['podprotectors'],
          scope: 'Namespaced',
        },
        'Ignore',
      ),
      hook(
        'node-epochs.palisade.dev',
        {
          apiGroups: [''],
          apiVersions: ['v1'],
          operations: ['UPDATE'],
          resources: ['nodes'],
          scope: 'Cluster',
        },
        'Ignore',
      ),
    ],
  };
}

export interface EpochCell {
  id: string;
  /** the cell's cluster: where its writes land and its controller Lease lives */
  cluster: { id: string; kc: k8s.KubeConfig };
}

/**
 * The /epochs/<cellID> handler: each cell's writes judged against its cluster's controller
 * Lease; every refusal counted and told as an Event on that Lease.
 */
export function epochReviews(o: {
  cells: EpochCell[];
  election: { namespace: string; name: string };
  metrics: RuntimeMetrics;
  /** this replica (the Event's reporter) */
  identity: string;
  logger: Logger;
}): Handler {
  const { namespace, name } = o.election;
  const byCell = new Map(
    o.cells.map((c) => {
      const events = new LeaseEventWriter(c.cluster.kc, o.logger);
      const deps: EpochWebhookDeps = {
        readLease: liveLease(c.cluster.kc, namespace, name),
        reviewed: (r) =>
          o.metrics.epochReviews.inc({
            cluster: c.cluster.id,
            resource: r.resource,
            leader_write: String(r.leaderWrite),
          }),
        refused: (w) => {
          const epoch = w.verdict.kind === 'stale' ? w.verdict.epoch : -1;
          // an epoch no leader has held yet (or none at all) is one label: a forged review's
          // number never becomes a metric series or an Event of its own
          const held = epoch >= 0 && epoch <= w.lease.transitions;
          const label = held ? String(epoch) : epoch < 0 ? 'malformed' : 'ahead';
          o.metrics.staleWritesRefused.inc({
            cluster: c.cluster.id,
            lease: `${namespace}/${name}`,
            epoch: label,
          });
          o.logger.warn(
            { cluster: c.cluster.id, write: w.what, user: w.user, epoch, current: w.lease.transitions },
            'stale leader write refused',
          );
          events.record(
            staleWriteEvent(
              { namespace, name },
              { epoch, what: w.what, message: w.verdict.message, by: o.identity, at: new Date() },
            ),
            label,
          );
        },
      };
      return [c.id, deps] as const;
    }),
  );
  const review = async (text: string, cellId: string): Promise<[number, unknown]> => {
    const deps = byCell.get(cellId);
    if (!deps) return [404, `unknown cell "${cellId}"`];
    return handleEpochReview(text, deps);
  };
  return { review };
}
