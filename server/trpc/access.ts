// access.*: what the signed-in person may do, so the UI can show what they may not do disabled
// with the reason before they try. Asked of the cluster (SelfSubjectAccessReview as the person,
// cached briefly); the cluster still decides when the action is sent.
import { z } from 'zod';
import type { AccessAttributes } from '../../lib/auth/forbidden.js';
import { mayNotWords } from '../../lib/auth/words.js';
import { accessForSimulatedFault, accessForWrite } from '../../lib/guard/access.js';
import { SEVERITIES } from '../../lib/incident/record.js';
import {
  clusterInput as cluster,
  clusterOf,
  objectName,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

const target = z.discriminatedUnion('action', [
  z.object({ action: z.literal('forceDeletePod'), namespace: objectName, name: objectName }),
  z.object({ action: z.literal('detachVolume'), attachment: objectName }),
  z.object({ action: z.literal('removeOutOfServiceTaint'), node: objectName }),
  z.object({ action: z.literal('approveFence'), fence: objectName }),
  z.object({ action: z.literal('cancelFence'), fence: objectName }),
  z.object({ action: z.literal('fenceNode'), node: objectName }),
  z.object({ action: z.literal('pauseFencePolicy'), policy: objectName }),
  z.object({ action: z.literal('resumeFencePolicy'), policy: objectName }),
  z.object({ action: z.literal('simulatedFault'), node: objectName }),
  z.object({ action: z.literal('cordonNode'), node: objectName }),
  z.object({ action: z.literal('uncordonNode'), node: objectName }),
  z.object({ action: z.literal('drainNode'), node: objectName }),
  z.object({ action: z.literal('evictPod'), namespace: objectName, name: objectName }),
  z.object({ action: z.literal('declareIncident'), severity: z.enum(SEVERITIES) }),
  z.object({ action: z.literal('takeIncidentCommand'), incident: objectName }),
  z.object({ action: z.literal('postIncidentUpdate'), incident: objectName }),
  z.object({ action: z.literal('setIncidentSeverity'), incident: objectName, severity: z.enum(SEVERITIES) }),
  z.object({ action: z.literal('resolveIncident'), incident: objectName }),
]);

export type AccessTarget = z.infer<typeof target>;

export interface AccessAnswer {
  allowed: boolean;
  /** "you (viewer) may not delete pods "x" in shop" */
  reason?: string;
  /** the cluster's own 403 text */
  message?: string;
}

async function answer(
  ctx: SignedInContext,
  clusterId: string,
  needs: AccessAttributes[],
): Promise<AccessAnswer> {
  const me = ctx.identity.principals.get(clusterId);
  for (const a of needs) {
    const d = await ctx.access.can(ctx.identity, clusterId, a);
    if (!d.allowed)
      return {
        allowed: false,
        reason: me ? mayNotWords(me.username, me.groups, a) : `you are not signed in to cluster ${clusterId}`,
        message: d.message,
      };
  }
  return { allowed: true };
}

export const accessRouter = router({
  /** for each target: may the person do it (the write's RBAC; overriding a guard is asked in the dialog) */
  actions: procedure
    .input(z.object({ cluster, targets: z.array(target).max(50, 'at most 50 targets at once') }))
    .query(async ({ ctx, input }): Promise<AccessAnswer[]> => {
      const conn = clusterOf(ctx, input.cluster);
      return Promise.all(
        input.targets.map((t) =>
          answer(
            ctx,
            conn.id,
            t.action === 'simulatedFault' ? [accessForSimulatedFault(t.node)] : accessForWrite(t),
          ),
        ),
      );
    }),
});
