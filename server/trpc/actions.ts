// actions.*: the guarded actions over tRPC. preview (a query: the live verdict, what will
// happen, a server-side dry run) and perform (the mutation) both go through server/actions,
// the one seam that knows who acts; audit lists the console's recorded actions — from the history
// store (so they outlive the Event TTL and restarts, with Palisade's own fence steps) merged with
// the Events in the cache (what the recorder has not written yet) — newest first, limited to the
// namespaces whose Events the person may list.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { CONSOLE_COMPONENT } from '../../lib/console/actionEvents.js';
import { GUARDED_ACTION_NAMES, MAX_REASON_LENGTH } from '../../lib/guard/actions.js';
import { SEVERITIES } from '../../lib/incident/record.js';
import { AUDIT_OUTCOMES, type AuditRow, auditRow, selectAudit } from '../../lib/guard/audit.js';
import { AUDIT_KINDS, auditRowOfEntry, mergeAuditRows } from '../../lib/history/audit.js';
import { MAX_TIMELINE_LIMIT } from '../../lib/history/filter.js';
import { FENCE_PLURAL, type FencePolicySpec, GROUP } from '../../lib/fencing/types.js';
import { budgetOf } from '../fencing/world.js';
import { actorOf } from '../actions/actor.js';
import { ActionError } from '../actions/errors.js';
import { perform, preview } from '../actions/perform.js';
import {
  clusterInput as cluster,
  clusterOf,
  listableNamespaces,
  may,
  objectName,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

const reasonText = z.string().max(MAX_REASON_LENGTH, `reason is longer than ${MAX_REASON_LENGTH} characters`);

/** The submission a perform carries besides its target (see server/actions/perform.ts). */
const submission = {
  confirm: z.string().max(253, 'confirmation is longer than 253 characters').optional(),
  reason: reasonText.optional(),
  dryRun: z.boolean().optional(),
  acknowledged: z.boolean().optional(),
  expect: z
    .object({ uid: z.string().max(128).optional(), resourceVersion: z.string().max(64).optional() })
    .optional(),
};

/** Each action's target fields. */
const on = {
  forceDeletePod: { action: z.literal('forceDeletePod'), cluster, namespace: objectName, name: objectName },
  detachVolume: { action: z.literal('detachVolume'), cluster, attachment: objectName },
  removeOutOfServiceTaint: { action: z.literal('removeOutOfServiceTaint'), cluster, node: objectName },
  approveFence: { action: z.literal('approveFence'), cluster, fence: objectName },
  cancelFence: { action: z.literal('cancelFence'), cluster, fence: objectName },
  fenceNode: { action: z.literal('fenceNode'), cluster, node: objectName },
  pauseFencePolicy: { action: z.literal('pauseFencePolicy'), cluster, policy: objectName },
  resumeFencePolicy: { action: z.literal('resumeFencePolicy'), cluster, policy: objectName },
  cordonNode: { action: z.literal('cordonNode'), cluster, node: objectName },
  uncordonNode: { action: z.literal('uncordonNode'), cluster, node: objectName },
  drainNode: { action: z.literal('drainNode'), cluster, node: objectName },
  evictPod: { action: z.literal('evictPod'), cluster, namespace: objectName, name: objectName },
  declareIncident: {
    action: z.literal('declareIncident'),
    cluster,
    severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }),
  },
  takeIncidentCommand: { action: z.literal('takeIncidentCommand'), cluster, incident: objectName },
  postIncidentUpdate: { action: z.literal('postIncidentUpdate'), cluster, incident: objectName },
  setIncidentSeverity: {
    action: z.literal('setIncidentSeverity'),
    cluster,
    incident: objectName,
    severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }),
  },
  resolveIncident: { action: z.literal('resolveIncident'), cluster, incident: objectName },
};
const unknownAction = { error: `action must be one of ${GUARDED_ACTION_NAMES.join(', ')}` };

export const previewInput = z.discriminatedUnion(
  'action',
  [
    z.object(on.forceDeletePod),
    z.object(on.detachVolume),
    z.object(on.removeOutOfServiceTaint),
    z.object(on.approveFence),
    z.object({ ...on.cancelFence, reason: reasonText.optional() }),
    z.object({ ...on.fenceNode, reason: reasonText.optional() }),
    z.object({ ...on.pauseFencePolicy, reason: reasonText.optional() }),
    z.object(on.resumeFencePolicy),
    z.object(on.cordonNode),
    z.object(on.uncordonNode),
    z.object({ ...on.drainNode, reason: reasonText.optional() }),
    z.object({ ...on.evictPod, reason: reasonText.optional() }),
    z.object({ ...on.declareIncident, reason: reasonText.optional() }),
    z.object(on.takeIncidentCommand),
    z.object({ ...on.postIncidentUpdate, reason: reasonText.optional() }),
    z.object({ ...on.setIncidentSeverity, reason: reasonText.optional() }),
    z.object({ ...on.resolveIncident, reason: reasonText.optional() }),
  ],
  unknownAction,
);

export const performInput = z.discriminatedUnion(
  'action',
  [
    z.object({ ...on.forceDeletePod, ...submission }),
    z.object({ ...on.detachVolume, ...submission }),
    z.object({ ...on.removeOutOfServiceTaint, ...submission }),
    z.object({ ...on.approveFence, ...submission }),
    // cancelling always says why: the reason goes into the fence's spec.cancelRequested
    z.object({
      ...on.cancelFence,
      ...submission,
      reason: reasonText.trim().min(1, 'a reason is required to cancel a fence'),
    }),
    // fencing by hand says why: it goes into the fence's spec.requestedBy
    z.object({
      ...on.fenceNode,
      ...submission,
      reason: reasonText.trim().min(1, 'a reason is required to fence a node by hand'),
    }),
    // pausing says why too: it goes into the policy's annotations and the audit
    z.object({
      ...on.pauseFencePolicy,
      ...submission,
      reason: reasonText.trim().min(1, 'a reason is required to pause a fence policy'),
    }),
    z.object({ ...on.resumeFencePolicy, ...submission }),
    z.object({ ...on.cordonNode, ...submission }),
    z.object({ ...on.uncordonNode, ...submission }),
    z.object({ ...on.drainNode, ...submission }),
    z.object({ ...on.evictPod, ...submission }),
    // what the incident is about: its title and first update
    z.object({
      ...on.declareIncident,
      ...submission,
      reason: reasonText.trim().min(1, 'a reason is required to declare an incident: it is its title'),
    }),
    z.object({ ...on.takeIncidentCommand, ...submission }),
    // the update's text is the reason field: it goes into the record
    z.object({
      ...on.postIncidentUpdate,
      ...submission,
      reason: reasonText.trim().min(1, 'the status update needs its text'),
    }),
    z.object({ ...on.setIncidentSeverity, ...submission }),
    z.object({
      ...on.resolveIncident,
      ...submission,
      reason: reasonText.trim().min(1, 'a reason is required to resolve an incident'),
    }),
  ],
  unknownAction,
);

export const auditInput = z.object({
  cluster,
  action: z.enum([...GUARDED_ACTION_NAMES, 'simulation', 'fence']).optional(),
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  user: z.string().max(256, 'user is longer than 256 characters').optional(),
  text: z.string().max(200, 'text is longer than 200 characters').optional(),
  limit: z.number().int().min(1).max(5000).default(500),
});

/**
 * The audit's rows in the history store, each with the namespace of the Event it was recorded
 * from (undefined for a fence step); none while the store is not open (the Events still answer).
 */
async function recordedAudit(ctx: SignedInContext, cluster: string) {
  const store = ctx.history?.current();
  if (!store) return [];
  const entries = await store.query({
    cluster,
    from: new Date(0).toISOString(),
    to: new Date(Date.now() + 86_400_000).toISOString(),
    kinds: AUDIT_KINDS,
    limit: MAX_TIMELINE_LIMIT,
  });
  return entries.flatMap((e) => {
    const row = auditRowOfEntry(e);
    if (!row) return [];
    const ns = e.details?.eventNamespace;
    return [{ row, namespace: typeof ns === 'string' ? ns : e.kind.startsWith('fence') ? undefined : '' }];
  });
}

function seam(ctx: SignedInContext, clusterId: string) {
  const conn = clusterOf(ctx, clusterId);
  return {
    conn,
    actor: actorOf(ctx.identity, conn.id),
    authorize: (a: Parameters<typeof may>[2]) => may(ctx, conn.id, a),
    auditKey: ctx.auditKey,
    heldByBudget: (node: string) =>
      ctx.fencing?.controllers
        .get(conn.id)
        ?.held()
        .find((h) => h.node === node && h.reason === 'budget')?.why,
    budgetOf: (spec: FencePolicySpec) => {
      const inf = ctx.fencing?.controllers.get(conn.id)?.informers;
      return inf && budgetOf(inf, spec);
    },
  };
}

async function asTrpc<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof ActionError) throw new TRPCError({ code: e.code, message: e.message, cause: e });
    throw e;
  }
}

export const actionsRouter = router({
  preview: procedure
    .input(previewInput)
    .query(({ ctx, input }) => asTrpc(() => preview(seam(ctx, input.cluster), input))),
  perform: procedure
    .input(performInput)
    .mutation(({ ctx, input }) => asTrpc(() => perform(seam(ctx, input.cluster), input))),
  audit: procedure.input(auditInput).query(async ({ ctx, input }): Promise<AuditRow[]> => {
    const conn = clusterOf(ctx, input.cluster);
    const events = conn.cache.eventList();
    const recorded = await recordedAudit(ctx, conn.id);
    const namespaces = [
      ...events.map((e) => e.namespace ?? ''),
      ...recorded.flatMap((r) => (r.namespace === undefined ? [] : [r.namespace])),
    ];
    const visible = await listableNamespaces(ctx, conn.id, { resource: 'events' }, namespaces);
    const fromEvents = events
      .filter((e) => !visible || visible.has(e.namespace ?? ''))
      .map((e) => auditRow(e, CONSOLE_COMPONENT, ctx.auditKey))
      .filter((r): r is AuditRow => !!r);
    // the fences' own steps: for whoever may list NodeFences
    const fences = (await may(ctx, conn.id, { verb: 'list', group: GROUP, resource: FENCE_PLURAL })).allowed;
    const fromStore = recorded
      .filter((r) => (r.namespace === undefined ? fences : !visible || visible.has(r.namespace)))
      .map((r) => r.row);
    return selectAudit(mergeAuditRows(fromStore, fromEvents), input);
  }),
});

/** The slice of the app router the UI's action components use (actions.* paths). */
const actionsApp = router({ actions: actionsRouter });
export type ActionsAppRouter = typeof actionsApp;
