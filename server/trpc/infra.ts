// infra.act: a simulated fault on the embedded cluster's infrastructure. The person's RBAC
// decides first (create on simulatedfaults.palisade.dev, named after the node: palisade-operator
// and -admin have it), then the cluster's mode (read-only refuses, protected wants the node's
// name typed again); then the infrastructure acts, and the action is recorded as a Kubernetes
// Event on the Node naming the person, so the cluster's own history shows it.
import type * as k8s from '@kubernetes/client-node';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { simulatedFaultEvent } from '../../lib/console/actionEvents.js';
import { withAuditSeal } from '../../lib/guard/auditSeal.js';
import { judgeAction } from '../../lib/console/actionGuard.js';
import { microTime } from '../../lib/protection/buckets.js';
import type { ClusterConnection } from '../kube/connection.js';
import { type ConsoleVerb, consoleVerbs, InfraError, nodeFault } from '../kube/infra.js';
import { accessForSimulatedFault } from '../../lib/guard/access.js';
import { allow, clusterInput, clusterOf, objectName, procedure, router } from './trpc.js';
import { errorText } from '../../lib/kube/errorText.js';
import { nameOn } from '../auth/identity.js';
import { auditLog } from '../log.js';

export const actInput = z.object({
  cluster: clusterInput,
  node: objectName,
  verb: z.enum(consoleVerbs),
  /** protected clusters: the node's name, typed by the user */
  confirm: z.string().max(253, 'confirmation is longer than 253 characters').optional(),
});

async function record(
  conn: ClusterConnection,
  node: string,
  verb: ConsoleVerb,
  by: string,
  auditKey?: Buffer,
) {
  const at = new Date();
  const event = simulatedFaultEvent({ verb, node, by, at, mode: conn.spec.mode ?? 'normal' });
  // eventTime is a metav1.MicroTime: kube-apiserver parses exactly six fractional digits and
  // answers 400 to the three client-node would send for a Date; sealed as Palisade's own record
  const body = withAuditSeal(
    { ...event, eventTime: microTime(at.getTime()) as unknown as k8s.V1MicroTime },
    at.getTime(),
    auditKey,
  );
  try {
    await conn.core.createNamespacedEvent({ namespace: 'default', body });
    return { recorded: true as const };
  } catch (e) {
    // the fault has happened: a lost record is reported, not turned into a failure
    return { recorded: false as const, recordError: errorText(e) };
  }
}

function refuseUnlessAllowed(conn: ClusterConnection, node: string, confirm?: string) {
  const verdict = judgeAction({ cluster: conn.id, mode: conn.spec.mode ?? 'normal', target: node, confirm });
  if (!verdict.allowed) throw new TRPCError({ code: verdict.code, message: verdict.message });
}

export const infraRouter = router({
  act: procedure.input(actInput).mutation(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    const ep = conn.spec.infra;
    if (!ep)
      throw new TRPCError({
        code: 'PRECONDITION_FAILED',
        message: `cluster "${conn.id}" is not Palisade's embedded cluster: it has no infrastructure API to act on`,
      });
    await allow(ctx, conn.id, accessForSimulatedFault(input.node)).catch((e) => {
      auditLog.warn(
        {
          event: 'simulated-fault',
          cluster: conn.id,
          target: input.node,
          verb: input.verb,
          user: nameOn(ctx.identity, conn.id),
          outcome: 'refused',
          code: 'FORBIDDEN',
        },
        (e as Error).message,
      );
      throw e;
    });
    refuseUnlessAllowed(conn, input.node, input.confirm);
    let state: unknown;
    try {
      state = await nodeFault(ep, input.node, input.verb);
    } catch (e) {
      if (!(e instanceof InfraError)) throw e;
      const code =
        e.status === 404 ? 'NOT_FOUND' : e.status === 400 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
      throw new TRPCError({ code, message: `infrastructure: ${e.message}`, cause: e });
    }
    const user = nameOn(ctx.identity, conn.id);
    const recorded = await record(conn, input.node, input.verb, user, ctx.auditKey);
    auditLog.info(
      {
        event: 'simulated-fault',
        cluster: conn.id,
        target: input.node,
        verb: input.verb,
        user,
        outcome: 'simulation',
        recorded: recorded.recorded,
      },
      `simulated ${input.verb} on ${input.node}`,
    );
    return { node: input.node, verb: input.verb, state, ...recorded };
  }),
});
