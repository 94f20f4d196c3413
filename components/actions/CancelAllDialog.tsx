'use client';
// "Cancel all" from the announced-fences bar: every fence Palisade will run by itself, cancelled
// with one reason. Each is still its own guarded action through the one seam — read live
// (preview), refused there if it ran meanwhile, sent conditional on what was read, recorded with
// who and why — one after the other, each line saying what happened. A fence whose cluster
// asks for its name typed (a protected cluster) is left to its own dialog.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, useSyncExternalStore } from 'react';
import type { Announced } from '@/lib/fencing/announced';
import { secondsLeft } from '@/lib/fencing/announced';
import { useNow } from '../console/clock';
import { useModal } from '../console/useModal';
import { type ActionTarget, useActionsApi } from './api';
import { ReasonChoices } from './ReasonChoices';

type Outcome = { state: 'sending' } | { state: 'done' | 'failed'; text: string };

export function CancelAllDialog(p: { cluster: string; items: readonly Announced[]; onClose: () => void }) {
  const api = useActionsApi();
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const [outcomes, setOutcomes] = useState<Map<string, Outcome>>(new Map());
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const reasonId = useId();
  const now = useNow(1000);
  const perform = useMutation(api.perform.mutationOptions());
  useModal(box, () => !busy && p.onClose());
  const set = (fence: string, o: Outcome) => setOutcomes((m) => new Map(m).set(fence, o));

  const cancelOne = async (a: Announced) => {
    const target: ActionTarget = { action: 'cancelFence', cluster: p.cluster, fence: a.fence };
    set(a.fence, { state: 'sending' });
    try {
      const pv = await qc.fetchQuery({ ...api.preview.queryOptions(target), staleTime: 0 });
      if (pv.refusal) return set(a.fence, { state: 'failed', text: pv.refusal });
      if (pv.needs.typedName)
        return set(a.fence, {
          state: 'failed',
          text: `this cluster asks for ${a.fence} typed: use its own Cancel`,
        });
      const r = await perform.mutateAsync({
        ...target,
        reason: reason.trim(),
        expect: { uid: pv.target.uid, resourceVersion: pv.target.resourceVersion },
      } as Parameters<typeof perform.mutateAsync>[0]);
      set(a.fence, { state: 'done', text: r.outcome });
    } catch (e) {
      set(a.fence, { state: 'failed', text: (e as Error).message });
    }
  };
  const send = async () => {
    setBusy(true);
    for (const a of p.items) await cancelOne(a);
    setBusy(false);
    void qc.invalidateQueries({ queryKey: api.audit.pathKey() });
  };
  const sent = outcomes.size > 0;
  const blocker = reason.trim() ? undefined : 'give a reason';

  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center p-4">
      <button
        type="button"
        aria-label="Close"
        tabIndex={-1}
        className="absolute inset-0 cursor-default bg-black/50"
        onClick={busy ? undefined : p.onClose}
      />
      <div
        ref={box}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="cancel-all-dialog"
        className="relative flex max-h-[90dvh] w-full max-w-xl flex-col gap-3 overflow-y-auto rounded border border-line bg-panel p-4 text-sm shadow-xl outline-none"
      >
        <h2 id={titleId} className="text-base font-semibold">
          Cancel {p.items.length === 1 ? 'the announced fence' : `all ${p.items.length} announced fences`}
        </h2>
        <p>
          Each fence stops before any agent runs; its node stays as it is, and its pods and volumes stay where
          they are until someone decides. A fence whose agent has already run cannot be cancelled: it says so
          below.
        </p>
        <ul aria-label="Fences to cancel" className="flex flex-col gap-1">
          {p.items.map((a) => (
            <li key={a.fence} data-testid={`cancel-all-item-${a.node}`} className="flex flex-wrap gap-2">
              <span className="font-mono font-semibold">{a.node}</span>
              <span className="text-dim">policy {a.policy}</span>
              <span className="text-warn">{leftText(a, now)}</span>
              <OutcomeText o={outcomes.get(a.fence)} />
            </li>
          ))}
        </ul>
        {!sent && (
          <div className="flex flex-col gap-1">
            <label htmlFor={reasonId}>Why (recorded in the cluster's Events, with your name)</label>
            <ReasonChoices action="cancelFence" reason={reason} setReason={setReason} />
            <textarea
              id={reasonId}
              data-testid="cancel-all-reason"
              value={reason}
              maxLength={500}
              rows={2}
              onChange={(e) => setReason(e.target.value)}
              className="rounded border border-line bg-bg px-1.5 py-1"
            />
          </div>
        )}
        <div className="flex items-center gap-2">
          {blocker && !sent && <span className="text-xs text-dim">{blocker}</span>}
          <button
            type="button"
            disabled={busy}
            onClick={p.onClose}
            className="ml-auto rounded border border-line px-3 py-1 disabled:opacity-50"
          >
            {sent ? 'Close' : 'Keep them'}
          </button>
          {!sent && (
            <button
              type="button"
              data-testid="cancel-all-submit"
              disabled={!!blocker || busy}
              onClick={() => void send()}
              className="rounded border border-info bg-info/15 px-3 py-1 font-semibold disabled:opacity-50"
            >
              Cancel {p.items.length === 1 ? 'the fence' : `${p.items.length} fences`}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

function leftText(a: Announced, now: number): string {
  if (a.paused) return 'held (policy paused)';
  if (a.fenceAt === undefined || now === 0) return 'announced';
  const s = secondsLeft(a.fenceAt, now);
  return s === 0 ? 'due now' : `runs in ${s} s`;
}

function OutcomeText({ o }: { o?: Outcome }) {
  if (!o) return null;
  if (o.state === 'sending')
    return (
      <span role="status" className="text-dim">
        cancelling…
      </span>
    );
  return (
    <span role="status" data-outcome={o.state} className={o.state === 'done' ? 'text-ok' : 'text-crit'}>
      {o.state === 'done' ? `cancelled: ${o.text}` : `not cancelled: ${o.text}`}
    </span>
  );
}

// The dialog outlives the bar that opened it: cancelling the last fence empties the bar, which
// then goes, and the dialog must stay to show each outcome. One host in the shell (as the
// guarded-action dialog's); the items are the ones shown when it opened.
interface Opened {
  cluster: string;
  items: readonly Announced[];
  opened: number;
}
let opened: Opened | undefined;
let openings = 0;
const listeners = new Set<() => void>();
const setOpened = (o: Opened | undefined) => {
  opened = o;
  for (const l of listeners) l();
};

export function openCancelAll(cluster: string, items: readonly Announced[]): void {
  setOpened({ cluster, items: [...items], opened: ++openings });
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function CancelAllHost() {
  const o = useSyncExternalStore(
    subscribe,
    () => opened,
    () => undefined,
  );
  if (!o) return null;
  return (
    <CancelAllDialog
      key={o.opened}
      cluster={o.cluster}
      items={o.items}
      onClose={() => setOpened(undefined)}
    />
  );
}
