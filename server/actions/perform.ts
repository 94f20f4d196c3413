// THE seam every console mutation goes through. In order:
// 1. the cluster's mode (read-only refuses; protected wants the target's name typed),
// 2. the objects re-read live from the API (never the cache) and the guard's verdict on them,
// 3. an unsafe action needs the target's name typed and a reason, and is refused outright when
//    no confirmation can make it sensible,
// 4. the write, conditional on the resourceVersion the person reviewed (or the one just read):
//    409 -> CONFLICT "changed since you looked", 404 -> NOT_FOUND; or only a server-side dry run,
// 5. the record: a Kubernetes Event saying who, what, why, and whether the guard was overridden.
// Who acts comes in the context (actor.ts): the signed-in person, whose RBAC is asked before
// the write (lib/guard/access.ts: the write's verb, approve/cancel, override) so a refusal comes
// first and in the cluster's own words; the write then goes to the API server as that person.
import type { AccessAttributes, AccessDecision } from '../../lib/auth/forbidden.js';
import { accessForOverride, accessForWrite } from '../../lib/guard/access.js';
import { judgeAction } from '../../lib/console/actionGuard.js';
import { COUNTDOWN_SECONDS, GUARDED_ACTIONS, type GuardedAction } from '../../lib/guard/actions.js';
import type { Verdict } from '../../lib/guard/types.js';
import type { ClusterConnection } from '../kube/connection.js';
import { forceDetachOf } from '../kube/forceDetach.js';
import { type DialogNeeds, needsOf } from '../../lib/guard/dialog.js';
import { type Actor, type ActionApis, apisFor } from './actor.js';
import { loadDetach } from './detach.js';
import { loadCordon, loadDrain } from './drain.js';
import { loadDeclare } from './declare.js';
import { loadEvict } from './evict.js';
import { ActionError, fromApi } from './errors.js';
import { loadApproveFence, loadCancelFence } from './fence.js';
import { loadFenceNode } from './fenceNode.js';
import { loadPausePolicy } from './fencePolicy.js';
import { loadForceDelete } from './forceDelete.js';
import { loadIncidentChange } from './incident.js';
import type { BudgetOf } from './outlook.js';
import { type ActionRequest, type Loaded, type NodeSummary, type Target, targetName } from './kind.js';
import { loadRemoveTaint } from './outOfService.js';
import { ensureRecordable, type Recorded, record } from './record.js';
import { auditLog } from '../log.js';

export type { ActionRequest } from './kind.js';

export interface ActionContext {
  conn: ClusterConnection;
  actor: Actor;
  /** asks the cluster whether the actor may do this (SelfSubjectAccessReview) */
  authorize(a: AccessAttributes): Promise<AccessDecision>;
  /** why the fencing budget holds a node's fence, if it does (the dialog then says no fence comes) */
  heldByBudget?(node: string): string | undefined;
  /** the fencing controller's budget count over a policy's nodes (the outlook judges a fence by it) */
  budgetOf?: BudgetOf;
  /** the install's audit key: the record is sealed as Palisade's own (lib/guard/auditSeal.ts) */
  auditKey?: Buffer;
}

/** The first thing RBAC does not allow the actor: the write's own verbs, then override if unsafe. */
async function forbidden(ctx: ActionContext, r: ActionRequest, unsafe: boolean): Promise<string | undefined> {
  const needs = [...accessForWrite(r), ...(unsafe ? [accessForOverride(r.action)] : [])];
  const answers = await Promise.all(needs.map((a) => ctx.authorize(a)));
  return answers.find((a) => !a.allowed)?.message;
}

export interface Submission {
  /** the target's name, typed by the person (unsafe actions, protected clusters) */
  confirm?: string;
  /** why, typed by the person (unsafe actions; cancelFence always) */
  reason?: string;
  /** server-side dry run only: nothing changes and nothing is recorded */
  dryRun?: boolean;
  /** the person ticked the acknowledgement (a risk the guard lets them acknowledge, see needsOf) */
  acknowledged?: boolean;
  /** the object as the person reviewed it (from preview): a different one is a CONFLICT */
  expect?: { uid?: string; resourceVersion?: string };
}

function loader(ctx: ActionContext, apis: ActionApis, r: ActionRequest): Promise<Loaded> {
  switch (r.action) {
    case 'forceDeletePod':
      return loadForceDelete(apis, r.namespace, r.name, forceDetachOf(ctx.conn), ctx.budgetOf);
    case 'detachVolume':
      return loadDetach(apis, r.attachment);
    case 'removeOutOfServiceTaint':
      return loadRemoveTaint(apis, r.node);
    case 'approveFence':
      return loadApproveFence(apis, r.fence);
    case 'cancelFence':
      return loadCancelFence(apis, r.fence);
    case 'fenceNode':
      return loadFenceNode(apis, r.node, (n) => ctx.heldByBudget?.(n));
    case 'pauseFencePolicy':
      return loadPausePolicy(apis, r.policy, true);
    case 'resumeFencePolicy':
      return loadPausePolicy(apis, r.policy, false);
    case 'cordonNode':
      return loadCordon(apis, r.node, true);
    case 'uncordonNode':
      return loadCordon(apis, r.node, false);
    case 'drainNode':
      return loadDrain(apis, r.node);
    case 'evictPod':
      return loadEvict(apis, r.namespace, r.name);
    case 'declareIncident':
      return loadDeclare(apis, r.severity, ctx.actor.name);
    case 'takeIncidentCommand':
    case 'postIncidentUpdate':
    case 'resolveIncident':
      return loadIncidentChange(apis, r.incident, { action: r.action }, ctx.actor.name);
    case 'setIncidentSeverity':
      return loadIncidentChange(apis, r.incident, { action: r.action, severity: r.severity }, ctx.actor.name);
  }
}

async function loadLive(ctx: ActionContext, r: ActionRequest): Promise<Loaded> {
  try {
    return await loader(ctx, apisFor(ctx.conn, ctx.actor), r);
  } catch (e) {
    throw fromApi(e, `reading ${targetName(r)}`);
  }
}

const modeOf = (conn: ClusterConnection) => conn.spec.mode ?? 'normal';

export interface Preview {
  action: GuardedAction;
  label: string;
  destructive: boolean;
  countdownSeconds: number;
  cluster: string;
  mode: string;
  target: Target;
  verdict: Verdict;
  will: string[];
  node?: NodeSummary;
  needs: DialogNeeds;
  /** set when the action will be refused whatever is typed */
  refusal?: string;
  /** set when the refusal is RBAC's: the person may not do this (the UI shows it disabled) */
  forbidden?: boolean;
  dryRun: { ran: boolean; ok: boolean; message: string };
}

/** What the dialog shows: the live verdict, what will happen, and a server-side dry run. */
export async function preview(ctx: ActionContext, r: ActionRequest): Promise<Preview> {
  const loaded = await loadLive(ctx, r);
  const v = loaded.verdict;
  const mode = modeOf(ctx.conn);
  const rbac = await forbidden(ctx, r, !v.safe);
  const refusal =
    mode === 'read-only'
      ? `cluster "${ctx.conn.id}" is read-only: Palisade does not change it`
      : !v.safe && !v.overridable
        ? v.reasons[0]
        : rbac;
  const meta = GUARDED_ACTIONS[loaded.action];
  return {
    action: loaded.action,
    label: meta.label,
    destructive: meta.destructive,
    countdownSeconds: COUNTDOWN_SECONDS,
    cluster: ctx.conn.id,
    mode,
    target: loaded.target,
    verdict: v,
    will: loaded.will,
    node: loaded.node,
    needs: needsOf(v, mode, r.action, targetName(r)),
    refusal,
    ...(rbac && refusal === rbac ? { forbidden: true } : {}),
    dryRun: refusal
      ? { ran: false, ok: false, message: `not sent: ${refusal}` }
      : await dryRun(ctx, loaded, r),
  };
}

async function dryRun(ctx: ActionContext, first: Loaded, r: ActionRequest) {
  let loaded = first;
  // a rebased decision (Loaded.rebase) met a write in between, as the real one may: read again
  for (let attempt = 1; attempt < REBASE_ATTEMPTS && loaded.rebase; attempt++) {
    const tried = await dryRunOnce(ctx, loaded, r);
    if (tried.ok || tried.code !== 'CONFLICT') return tried.shown;
    loaded = await loadLive(ctx, r);
  }
  return (await dryRunOnce(ctx, loaded, r)).shown;
}

async function dryRunOnce(ctx: ActionContext, loaded: Loaded, r: ActionRequest) {
  try {
    const message = await loaded.write({
      dryRun: true,
      resourceVersion: loaded.target.resourceVersion,
      actor: ctx.actor,
      reason: ('reason' in r && r.reason) || '(preview)',
      at: new Date(),
    });
    return { ok: true, shown: { ran: true, ok: true, message } };
  } catch (e) {
    const err = fromApi(e, `${loaded.target.kind} ${loaded.target.name}`);
    return { ok: false, code: err.code, shown: { ran: true, ok: false, message: err.message } };
  }
}

export type Performed = {
  action: GuardedAction;
  dryRun: boolean;
  target: Target;
  verdict: Verdict;
  overridden: boolean;
  /** what the API server did, or would do on a dry run */
  outcome: string;
} & Recorded;

/** Carry out one guarded action for ctx.actor, or refuse it with an ActionError; either way one audit line. */
export async function perform(ctx: ActionContext, r: ActionRequest & Submission): Promise<Performed> {
  const line = {
    event: 'guarded-action',
    action: r.action,
    cluster: ctx.conn.id,
    target: targetName(r),
    user: ctx.actor.name,
    via: ctx.actor.via,
  };
  try {
    const done = await performUnlogged(ctx, r);
    const outcome = done.overridden ? 'overridden' : 'safe';
    if (done.dryRun) auditLog.debug({ ...line, outcome, dryRun: true }, 'dry run');
    else
      auditLog.info(
        { ...line, outcome, reason: r.reason, recorded: done.recorded, eventName: done.event },
        done.outcome,
      );
    return done;
  } catch (e) {
    const err = e instanceof ActionError ? e : undefined;
    auditLog.warn(
      { ...line, outcome: 'refused', code: err?.code ?? 'INTERNAL_SERVER_ERROR', dryRun: r.dryRun === true },
      (e as Error).message,
    );
    throw e;
  }
}

/** Rebased writes retried on a 409, as client-go's RetryOnConflict (DefaultRetry: 5 steps). */
const REBASE_ATTEMPTS = 5;

async function performUnlogged(
  ctx: ActionContext,
  r: ActionRequest & Submission,
  attempt = 1,
): Promise<Performed> {
  const name = targetName(r);
  refuseByMode(ctx.conn, name, r);
  const loaded = await loadLive(ctx, r);
  const t = loaded.target;
  // reviewed before the target took another's place (lib: Loaded.supersedes): the same decision
  const carried = !!r.expect?.uid && r.expect.uid === loaded.supersedes?.uid;
  if (r.expect?.uid && r.expect.uid !== t.uid && !carried)
    throw new ActionError(
      'CONFLICT',
      `${t.kind} ${name} changed since you looked: it was deleted and created again (uid ${t.uid}); review and try again`,
    );
  const why = (r.reason ?? '').trim();
  const overridden = refuseUnlessConfirmed(loaded, name, r, why, modeOf(ctx.conn));
  const denied = await forbidden(ctx, r, !loaded.verdict.safe);
  if (denied) throw new ActionError('FORBIDDEN', denied);
  const dryRun = r.dryRun === true;
  const at = new Date();
  const rec = { loaded, actor: ctx.actor, why, overridden, at, auditKey: ctx.auditKey };
  if (!dryRun) await ensureRecordable(ctx.conn, rec);
  let outcome: string;
  try {
    outcome = await loaded.write({
      dryRun,
      resourceVersion:
        carried || loaded.rebase ? t.resourceVersion : (r.expect?.resourceVersion ?? t.resourceVersion),
      actor: ctx.actor,
      reason: why,
      at,
    });
  } catch (e) {
    const err = fromApi(e, `${t.kind} ${name}`);
    // a rebased decision met a write in between (the controller created the fence, or wrote its
    // status twice in a row just after): read, judge and write again, all checks again
    if (err.code === 'CONFLICT' && loaded.rebase && attempt < REBASE_ATTEMPTS)
      return performUnlogged(ctx, r, attempt + 1);
    throw err;
  }
  const base = { action: loaded.action, dryRun, target: t, verdict: loaded.verdict, overridden, outcome };
  if (dryRun) return { ...base, recorded: false };
  const said = loaded.recordOutcome
    ? { ...rec, loaded: { ...loaded, what: `${loaded.what}: ${outcome}` } }
    : rec;
  return { ...base, ...(await record(ctx.conn, said)) };
}

function refuseByMode(conn: ClusterConnection, name: string, s: Submission) {
  // a dry run changes nothing: a protected cluster does not ask for the name; read-only refuses all
  const confirm = s.dryRun ? name : s.confirm;
  const v = judgeAction({ cluster: conn.id, mode: modeOf(conn), target: name, confirm });
  if (!v.allowed) throw new ActionError(v.code, v.message);
}

/** Throws unless the action is safe, or unsafe and confirmed; answers whether it was overridden. */
function refuseUnlessConfirmed(
  loaded: Loaded,
  name: string,
  s: Submission,
  why: string,
  mode: string,
): boolean {
  const v = loaded.verdict;
  if (v.safe) return false;
  const label = GUARDED_ACTIONS[loaded.action].label;
  if (!v.overridable)
    throw new ActionError('PRECONDITION_FAILED', `${label} ${name} refused: ${v.reasons.join('; ')}`);
  if (s.dryRun) return true;
  const listed = v.reasons.map((x, i) => `(${i + 1}) ${x}`).join('; ');
  // a risk the guard lets a person acknowledge: the tick is enough (typing still works too)
  if (needsOf(v, mode, loaded.action, name).acknowledge) {
    if (s.acknowledged === true || (s.confirm === name && why)) return true;
    throw new ActionError(
      'PRECONDITION_FAILED',
      `${label} ${name} is unsafe: ${listed}. To do it anyway, acknowledge the risk (acknowledged: true).`,
    );
  }
  const missing = [
    ...(s.confirm === undefined || s.confirm === ''
      ? [`type "${name}" to confirm`]
      : s.confirm !== name
        ? [`the confirmation "${s.confirm}" does not match "${name}"`]
        : []),
    ...(why ? [] : ['give a reason']),
  ];
  if (missing.length > 0)
    throw new ActionError(
      'PRECONDITION_FAILED',
      `${label} ${name} is unsafe: ${listed}. To do it anyway, type "${name}" and give a reason (${missing.join('; ')}).`,
    );
  return true;
}
