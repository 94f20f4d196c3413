// The Audit page's rows from the history store: people's guarded actions and simulated faults
// (recorded from the console's Events, so they outlive the Event TTL) and Palisade's own fence
// steps — what each released, who cancelled — which no Event of a person's records.
import { GUARDED_ACTION_NAMES, GUARDED_ACTIONS, type GuardedAction } from '../guard/actions';
import type { AuditRow } from '../guard/audit';
import type { HistoryEntry, HistoryKind } from './types';

export const AUDIT_KINDS: HistoryKind[] = ['guarded-action', 'fault', 'fence-step', 'fence-cancel'];

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** "released pods shop/db-0, shop/db-1; volume attachments csi-1" (empty when nothing was). */
export function releasedText(details: Record<string, unknown> | undefined): string {
  const r = details?.released as { pods?: unknown; volumeAttachments?: unknown } | undefined;
  if (!r) return '';
  const pods = strs(r.pods);
  const vas = strs(r.volumeAttachments);
  const parts = [
    pods.length ? `pods ${pods.join(', ')}` : '',
    vas.length ? `volume attachments ${vas.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? `released ${parts.join('; ')}` : 'released no pods and no volume attachments';
}

function target(e: HistoryEntry): AuditRow['target'] {
  const s = e.subject;
  return { kind: s.kind, ...(s.namespace ? { namespace: s.namespace } : {}), name: s.name };
}

/** The Audit page's row for a history entry; undefined for kinds the audit does not list. */
export function auditRowOfEntry(e: HistoryEntry): AuditRow | undefined {
  const d = e.details ?? {};
  const base = { uid: str(d.eventUid) || `${e.cluster}/${e.id}`, at: Date.parse(e.at), target: target(e) };
  if (e.kind === 'guarded-action') {
    const action = str(d.action) as GuardedAction;
    if (!GUARDED_ACTION_NAMES.includes(action)) return undefined;
    return {
      ...base,
      action,
      label: GUARDED_ACTIONS[action].label,
      by: e.actor ?? '',
      why: str(d.why),
      outcome: d.outcome === 'overridden' ? 'overridden' : 'safe',
      what: str(d.what) || e.message,
      reasons: strs(d.reasons),
    };
  }
  // what the infrastructure reported is no one's action, and its Event carries no seal: the
  // history shows it, the audit (who did what) does not
  if (e.kind === 'fault' && d.reportedBy === 'infrastructure') return undefined;
  if (e.kind === 'fault')
    return {
      ...base,
      action: 'simulation',
      label: 'Simulated fault',
      by: e.actor ?? '',
      why: '',
      outcome: 'simulation',
      what: str(d.what) || e.message,
      reasons: [],
    };
  if (e.kind === 'fence-step' || e.kind === 'fence-cancel') {
    const node = str(d.node);
    const released = releasedText(e.details);
    return {
      ...base,
      action: 'fence',
      label: e.kind === 'fence-cancel' ? 'Fence cancelled' : `Fence: ${e.reason}`,
      by: e.actor ?? 'palisade',
      why:
        e.kind === 'fence-cancel' || d.person ? str(d.why) : str(d.policy) ? `policy ${str(d.policy)}` : '',
      outcome: d.person === true ? 'person' : 'automatic',
      what: [node ? `node ${node}: ${e.message}` : e.message, released].filter(Boolean).join(' — '),
      reasons: [],
    };
  }
  return undefined;
}

/** Rows from the store and from the cluster's Events merged: one per record, the store's first. */
export function mergeAuditRows(fromStore: AuditRow[], fromEvents: AuditRow[]): AuditRow[] {
  const seen = new Set(fromStore.map((r) => r.uid));
  return [...fromStore, ...fromEvents.filter((r) => !seen.has(r.uid))];
}
