'use client';
// The announced-fences bar, sticky at the top of every page (issue 25): "3 fences in 8 s —
// Cancel all… / Pause policy zones…" while Palisade is about to fence by itself, and "fencing
// paused: policy zones, by ann at 04:55 — Resume…" while a policy is paused, so that the
// paused state reads the same on every page. Inside a 10-second window the commander must not
// have to find the node first. Text, not colour alone; not a live region (it counts every second:
// the incident view's headline is the announcement).
import { type AnnouncedSummary, announcedText } from '@/lib/fencing/announced';
import { formatClock } from '@/lib/console/ui/format';
import { openCancelAll } from '../actions/CancelAllDialog';
import { CancelFenceButton, PausePolicyButton } from '../actions/GuardedActionButtons';
import { useMay } from '../auth/access';
import { useNow } from '../console/clock';
import { useCluster } from '../console/cluster';
import { type FencingPolicies, useAnnounced } from './live';

const BUTTON = 'rounded border px-2 py-0.5 text-xs font-semibold disabled:opacity-50';

export function FenceBar() {
  const { cluster, current } = useCluster();
  const { summary, policies } = useAnnounced();
  const paused = policies.filter((p) => p.paused);
  if (!cluster || (summary.items.length === 0 && paused.length === 0)) return null;
  const readOnly = current?.mode === 'read-only';
  return (
    <section
      aria-label="Announced fences"
      data-testid="fence-bar"
      className="sticky top-11 z-20 flex flex-col gap-1 border-b border-warn/60 bg-panel px-3 py-1.5 text-sm"
    >
      {summary.items.length > 0 && <Announcements cluster={cluster} summary={summary} readOnly={readOnly} />}
      {paused.map((p) => (
        <PausedPolicy key={p.name} cluster={cluster} policy={p} readOnly={readOnly} />
      ))}
    </section>
  );
}

function Announcements(p: { cluster: string; summary: AnnouncedSummary; readOnly: boolean }) {
  const { summary, cluster } = p;
  const now = useNow(1000);
  const nodes = summary.items.map((a) => a.node);
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span aria-hidden="true" className="font-bold text-warn">
        ⚠
      </span>
      <strong data-testid="fence-bar-text" className="text-warn">
        {now === 0 ? `${summary.items.length} announced` : announcedText(summary, now)}
      </strong>
      <span className="font-mono text-xs" data-testid="fence-bar-nodes">
        {nodes.slice(0, 6).join(', ')}
        {nodes.length > 6 ? ` and ${nodes.length - 6} more` : ''}
      </span>
      <span className="ml-auto flex flex-wrap gap-2">
        {summary.items.length === 1 ? (
          <CancelFenceButton
            cluster={cluster}
            fence={summary.items[0]!.fence}
            disabled={p.readOnly}
            label={`Cancel fence on ${summary.items[0]!.node}…`}
            className={`${BUTTON} border-info bg-info/15`}
          />
        ) : (
          <CancelAllButton cluster={cluster} summary={summary} disabled={p.readOnly} />
        )}
        {summary.running.map((policy) => (
          <PausePolicyButton
            key={policy}
            cluster={cluster}
            policy={policy}
            paused={false}
            disabled={p.readOnly}
            className={`${BUTTON} border-line bg-panel-2`}
          />
        ))}
      </span>
    </div>
  );
}

/** Cancel every announced fence: each through the seam, one reason for all. */
function CancelAllButton(p: { cluster: string; summary: AnnouncedSummary; disabled: boolean }) {
  const may = useMay(p.cluster, { action: 'cancelFence', fence: p.summary.items[0]!.fence });
  const denied = may.allowed === false;
  return (
    <>
      <button
        type="button"
        data-testid="fence-bar-cancel-all"
        disabled={p.disabled || denied}
        title={denied ? may.reason : 'Cancel every announced fence, each recorded with your name and reason'}
        onClick={() => openCancelAll(p.cluster, p.summary.items)}
        className={`${BUTTON} border-info bg-info/15`}
      >
        Cancel all {p.summary.items.length}…
      </button>
    </>
  );
}

function PausedPolicy(p: { cluster: string; policy: FencingPolicies[number]; readOnly: boolean }) {
  const by = p.policy.pausedBy;
  const at = by?.at ? Date.parse(by.at) : undefined;
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid={`fence-bar-paused-${p.policy.name}`}>
      <strong className="text-warn">Fencing paused:</strong>
      <span>
        policy <span className="font-mono">{p.policy.name}</span>
        {by ? ` by ${by.by}${at ? ` at ${formatClock(at)}` : ''}${by.reason ? ` — “${by.reason}”` : ''}` : ''}
        : it starts no fence, and holds the ones in their warning window
      </span>
      <span className="ml-auto">
        <PausePolicyButton
          cluster={p.cluster}
          policy={p.policy.name}
          paused
          disabled={p.readOnly}
          className={`${BUTTON} border-line bg-panel-2`}
        />
      </span>
    </div>
  );
}
