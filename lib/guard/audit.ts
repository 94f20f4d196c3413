// The record of a guarded action is a Kubernetes Event whose message reads as a sentence and
// parses back into the Audit page's columns:
//   "<what happened> | safe | by: <who> | why: <reason typed>"
//   "<what happened> | overridden: <reason>; <reason> | by: <who> | why: <reason typed>"
// The typed reason comes last, so whatever a person typed cannot shift the other fields.
// Simulated faults (infra.act) are console actions too and are read back from their own wording.
// Only Events Palisade sealed (auditSeal.ts) are read back: anyone who may create Events could
// write one that says anything.
import type { EventView } from '../console/views.js';
import { actionOfReason, GUARDED_ACTIONS, type GuardedAction } from './actions.js';
import { checkAuditSeal } from './auditSeal.js';

const SEP = ' | ';
/** core/v1 Event messages are kept under 1 KiB, as events.k8s.io's note is */
const MAX_MESSAGE = 1024;

export interface AuditFields {
  what: string;
  overridden: boolean;
  /** the guard's reasons the person overrode (empty when safe) */
  reasons: string[];
  by: string;
  why: string;
}

const clean = (s: string) => s.replaceAll(SEP, ' / ').replace(/\s+/g, ' ').trim();
const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`);

export function auditMessage(f: AuditFields): string {
  const what = cut(clean(f.what), 240);
  const tail = `${SEP}by: ${cut(clean(f.by), 160)}${SEP}why: ${cut(f.why.replace(/\s+/g, ' ').trim(), 500) || '(none given)'}`;
  const room = MAX_MESSAGE - what.length - tail.length - SEP.length;
  const verdict = f.overridden ? `overridden: ${f.reasons.map(clean).join('; ')}` : 'safe';
  return `${what}${SEP}${cut(verdict, room)}${tail}`;
}

export function parseAuditMessage(message: string | undefined): AuditFields | undefined {
  const parts = (message ?? '').split(SEP);
  if (parts.length < 4 || !parts[2].startsWith('by: ') || !parts[3].startsWith('why: ')) return undefined;
  const verdict = parts[1];
  const overridden = verdict.startsWith('overridden');
  if (!overridden && verdict !== 'safe') return undefined;
  return {
    what: parts[0],
    overridden,
    reasons: overridden
      ? verdict
          .replace(/^overridden:?\s*/, '')
          .split('; ')
          .filter(Boolean)
      : [],
    by: parts[2].slice(4),
    why: parts.slice(3).join(SEP).slice(5),
  };
}

/**
 * automatic: Palisade acted itself (a fence step, a release, a cancelled fence honoured);
 * person: a fence step a person caused (Fence now, an approval): not Palisade's own decision
 */
export type AuditOutcome = 'safe' | 'overridden' | 'simulation' | 'automatic' | 'person';
export const AUDIT_OUTCOMES = ['safe', 'overridden', 'simulation', 'automatic', 'person'] as const;

/** What the Audit page lists: people's guarded actions, simulated faults, and Palisade's fences. */
export type AuditAction = GuardedAction | 'simulation' | 'fence';

export interface AuditRow {
  uid: string;
  /** ms since epoch */
  at?: number;
  action: AuditAction;
  label: string;
  target: { kind?: string; namespace?: string; name?: string };
  by: string;
  why: string;
  outcome: AuditOutcome;
  what: string;
  reasons: string[];
}

const SIMULATED = /^Palisade console \(simulation\): (.*); requested by (.*?)(?: in ([\w-]+) mode)?$/;

/**
 * The Audit page's row for one of the console's Events, if Palisade sealed it with this audit
 * key; undefined for any other Event (another component's, or one anyone could have written).
 */
export function auditRow(
  e: EventView,
  consoleComponent: string,
  auditKey: Buffer | undefined,
): AuditRow | undefined {
  if (e.source !== consoleComponent) return undefined;
  const at = checkAuditSeal(
    {
      namespace: e.namespace,
      name: e.name ?? '',
      reason: e.reason,
      message: e.message,
      type: e.type,
      involved: e.involved,
    },
    e.seal,
    auditKey,
  );
  if (at === undefined) return undefined;
  const base = { uid: e.uid, at, target: e.involved };
  const action = actionOfReason(e.reason);
  const fields = action && parseAuditMessage(e.message);
  if (action && fields)
    return {
      ...base,
      action,
      label: GUARDED_ACTIONS[action].label,
      by: fields.by,
      why: fields.why,
      outcome: fields.overridden ? 'overridden' : 'safe',
      what: fields.what,
      reasons: fields.reasons,
    };
  const sim = SIMULATED.exec(e.message ?? '');
  if (!sim) return undefined;
  return {
    ...base,
    action: 'simulation',
    label: 'Simulated fault',
    by: sim[2],
    why: sim[3] ? `(${sim[3]} cluster)` : '',
    outcome: 'simulation',
    what: sim[1],
    reasons: [],
  };
}

export interface AuditFilter {
  action?: AuditAction;
  outcome?: AuditOutcome;
  /** who acted, exactly as recorded */
  user?: string;
  /** matched, case-insensitively, against who, why, what and the target */
  text?: string;
  limit?: number;
}

/** Newest first, filtered. */
export function selectAudit(rows: AuditRow[], f: AuditFilter = {}): AuditRow[] {
  const text = f.text?.trim().toLowerCase();
  const out = rows
    .filter((r) => !f.action || r.action === f.action)
    .filter((r) => !f.outcome || r.outcome === f.outcome)
    .filter((r) => !f.user || r.by === f.user)
    .filter((r) => !text || haystack(r).includes(text))
    .sort((a, b) => (b.at ?? 0) - (a.at ?? 0));
  return f.limit ? out.slice(0, f.limit) : out;
}

function haystack(r: AuditRow): string {
  const t = r.target;
  return [r.by, r.why, r.what, r.label, t.kind, t.namespace, t.name].join('\n').toLowerCase();
}
