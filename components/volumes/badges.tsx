'use client';
// The volumes page's badges: a volume's risk, and a node with its health (the map's colours).
import { NODE_DOT_CLASS, NODE_STATE_LABEL } from '@/lib/console/ui/states';
import type { NodeHealth, Risk } from '@/lib/volumes/rwoTypes';

export const RISKS: readonly Risk[] = ['split-brain-risk', 'stuck', 'waiting', 'ok'];

export const RISK_LABEL: Record<Risk, string> = {
  'split-brain-risk': 'Split-brain risk',
  stuck: 'Stuck',
  waiting: 'Waiting',
  ok: 'OK',
};

const RISK_CLASS: Record<Risk, string> = {
  'split-brain-risk': 'bg-crit text-on-fill border-crit',
  stuck: 'bg-crit/15 text-crit border-crit/40',
  waiting: 'bg-warn/15 text-warn border-warn/40',
  ok: 'bg-ok/15 text-ok border-ok/40',
};

export const RISK_DOT: Record<Risk, string> = {
  'split-brain-risk': 'bg-crit',
  stuck: 'bg-crit/60',
  waiting: 'bg-warn',
  ok: 'bg-ok',
};

export function RiskBadge({ risk, title }: { risk: Risk; title?: string }) {
  return (
    <span
      data-testid="volume-risk"
      data-risk={risk}
      title={title}
      className={`inline-block rounded border px-1.5 py-0.5 text-xs font-semibold whitespace-nowrap ${RISK_CLASS[risk]}`}
    >
      {RISK_LABEL[risk]}
    </span>
  );
}

const healthLabel = (h: NodeHealth) => (h === 'gone' ? 'Gone' : NODE_STATE_LABEL[h]);
const healthDot = (h: NodeHealth) => (h === 'gone' ? 'bg-muted' : NODE_DOT_CLASS[h]);
const isUp = (h: NodeHealth | undefined) => h === 'ready' || h === 'cordoned';

/** A node name with its health: a dot always, the state in words when it is not healthy. */
export function NodeBadge({ node, health }: { node: string; health: NodeHealth | undefined }) {
  const h = health ?? 'gone';
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap" title={`${node}: ${healthLabel(h)}`}>
      <span className={`inline-block h-2 w-2 shrink-0 rounded-full ${healthDot(h)}`} aria-hidden="true" />
      <span className="font-mono text-xs">{node}</span>
      {!isUp(h) && (
        <span className="rounded bg-crit/12 px-1 text-[10px] font-semibold uppercase text-crit">
          {healthLabel(h)}
        </span>
      )}
    </span>
  );
}
