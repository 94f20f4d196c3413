// Every performed action is recorded as a Kubernetes Event on the object it changed, written
// with the console's own credentials (the record must not depend on the actor's RBAC). The
// Event is first created as a server-side dry run, before the action: a console that cannot
// record (RBAC, a broken API) refuses to act rather than act without a record. Refusals and dry
// runs are not recorded: nothing happened, and a read-only or protected cluster must not be
// written to by a stray click.
import { CONSOLE_COMPONENT, guardedActionEvent } from '../../lib/console/actionEvents.js';
import { GUARDED_ACTIONS } from '../../lib/guard/actions.js';
import { auditMessage } from '../../lib/guard/audit.js';
import { withAuditSeal } from '../../lib/guard/auditSeal.js';
import { errorText } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Actor } from './actor.js';
import { ActionError, statusOf } from './errors.js';
import type { Loaded } from './kind.js';

export interface RecordInput {
  loaded: Loaded;
  actor: Actor;
  why: string;
  overridden: boolean;
  at: Date;
  /** the install's audit key: the Event is sealed as Palisade's own record (lib/guard/auditSeal.ts) */
  auditKey?: Buffer;
}

export function eventFor(r: RecordInput) {
  return withAuditSeal(unsealed(r), r.at.getTime(), r.auditKey);
}

function unsealed({ loaded, actor, why, overridden, at }: RecordInput) {
  const t = loaded.target;
  const v = loaded.verdict;
  return guardedActionEvent({
    reason: GUARDED_ACTIONS[loaded.action].reason,
    action: loaded.action,
    involved: {
      kind: t.kind,
      apiVersion: t.apiVersion,
      name: t.name,
      ...(t.namespace ? { namespace: t.namespace } : {}),
      uid: t.uid,
      resourceVersion: t.resourceVersion,
    },
    related: loaded.related,
    message: auditMessage({
      what: loaded.what,
      overridden,
      reasons: v.safe ? [] : v.reasons,
      by: actor.name,
      why,
    }),
    overridden,
    by: actor.name,
    via: actor.via,
    why,
    at,
  });
}

/** Refuse to act when the record could not be written. */
export async function ensureRecordable(conn: ClusterConnection, r: RecordInput) {
  const body = eventFor(r);
  try {
    await conn.core.createNamespacedEvent({ namespace: body.metadata!.namespace!, body, dryRun: 'All' });
  } catch (e) {
    throw new ActionError(
      statusOf(e) === 403 ? 'FORBIDDEN' : 'INTERNAL_SERVER_ERROR',
      `cannot record this action as a Kubernetes Event (${errorText(e)}): refusing to act without a record`,
    );
  }
}

export interface Recorded {
  recorded: boolean;
  /** namespace/name of the Event */
  event?: string;
  recordError?: string;
}

export async function record(conn: ClusterConnection, r: RecordInput): Promise<Recorded> {
  const body = eventFor(r);
  try {
    const e = await conn.core.createNamespacedEvent({ namespace: body.metadata!.namespace!, body });
    return { recorded: true, event: `${e.metadata?.namespace}/${e.metadata?.name}` };
  } catch (e) {
    // the action has happened: a lost record is reported, not turned into a failure
    return { recorded: false, recordError: errorText(e) };
  }
}

export { CONSOLE_COMPONENT };
