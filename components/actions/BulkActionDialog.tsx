'use client';
// One guarded action on many targets with one reason: cancel every announced fence, cordon a zone
// or a rack. Each target is still its own guarded action through the one seam — read live
// (preview), refused there if it no longer makes sense, sent conditional on what was read,
// recorded with who and why — a few at a time, each line saying what happened. A target the
// guard judges unsafe, or whose cluster asks for its name typed (a protected cluster), is left to
// its own dialog: one reason for many never overrides a guard — unless the spec offers a bulk
// override (fence all held, lib/guard/bulk.ts): then each target's live verdict is shown on its
// line and a typed phrase naming the whole set confirms them all, each with its own name.
import { useMutation, useQueries, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useId, useRef, useState, useSyncExternalStore } from 'react';
import type { GuardedAction } from '@/lib/guard/actions';
import { bulkStep } from '@/lib/guard/bulk';
import { useModal } from '../console/useModal';
import { type ActionTarget, type Preview, useActionsApi } from './api';
import { ReasonChoices } from './ReasonChoices';

/** targets sent at once: enough for a zone's fences, few enough not to flood the API server */
const BULK_CONCURRENCY = 4;

type Outcome = { state: 'sending' } | { state: 'done' | 'failed'; text: string };

export interface BulkItem {
  key: string;
  /** the node's or fence's name, shown first */
  label: string;
  target: ActionTarget;
  /** more about it (its policy), and a live detail (time left) */
  detail?: ReactNode;
}

export interface BulkSpec {
  cluster: string;
  /** the dialog's test ids start with this ("cancel-all": cancel-all-dialog, -item-<label>, -submit) */
  testId: string;
  title: string;
  intro: string;
  action: GuardedAction;
  items: readonly BulkItem[];
  reasonRequired: boolean;
  /** words: "cancelling…", "cancelled", "not cancelled", "Keep them", "Cancel 3 fences" */
  words: { doing: string; done: string; notDone: string; keep: string; submit: string };
  /** a bulk override: the phrase that confirms every target the guard wants confirmed */
  override?: { phrase: string; what: string };
}

export function BulkActionDialog({ spec, onClose }: { spec: BulkSpec; onClose: () => void }) {
  const api = useActionsApi();
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const phraseId = useId();
  // with an override on offer, each line shows its verdict before anything is typed
  const previews = useQueries({
    queries: spec.items.map((item) => ({
      ...api.preview.queryOptions(item.target),
      enabled: !!spec.override,
    })),
  });
  const [outcomes, setOutcomes] = useState<Map<string, Outcome>>(new Map());
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const reasonId = useId();
  const perform = useMutation(api.perform.mutationOptions());
  useModal(box, () => !busy && onClose());
  const set = (key: string, o: Outcome) => setOutcomes((m) => new Map(m).set(key, o));

  const doOne = async (item: BulkItem) => {
    set(item.key, { state: 'sending' });
    try {
      const pv = await qc.fetchQuery({ ...api.preview.queryOptions(item.target), staleTime: 0 });
      if (pv.refusal) return set(item.key, { state: 'failed', text: pv.refusal });
      const step = bulkStep({
        needs: pv.needs,
        reason: pv.verdict.safe ? undefined : pv.verdict.reasons[0],
        label: item.label,
        phrase: spec.override?.phrase,
        typed,
      });
      if (!step.send) return set(item.key, { state: 'failed', text: step.why });
      const r = await perform.mutateAsync({
        ...item.target,
        ...(step.confirm ? { confirm: step.confirm } : {}),
        ...(step.acknowledged ? { acknowledged: true } : {}),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        expect: { uid: pv.target.uid, resourceVersion: pv.target.resourceVersion },
      } as Parameters<typeof perform.mutateAsync>[0]);
      set(item.key, { state: 'done', text: r.outcome });
    } catch (e) {
      set(item.key, { state: 'failed', text: (e as Error).message });
    }
  };
  const send = async () => {
    setBusy(true);
    // a few at a time, not one after the other: inside a 10-second warning window the second
    // cancel must not wait for the first one's round trips (each is still its own action)
    const queue = [...spec.items];
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) await doOne(item);
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, queue.length) }, worker));
    setBusy(false);
    void qc.invalidateQueries({ queryKey: api.audit.pathKey() });
  };
  const sent = outcomes.size > 0;
  const blocker =
    spec.reasonRequired && !reason.trim()
      ? 'give a reason'
      : spec.override && typed !== spec.override.phrase
        ? `type "${spec.override.phrase}" to confirm`
        : undefined;

  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center p-4">
      <button
        type="button"
        aria-label="Close"
        tabIndex={-1}
        className="absolute inset-0 cursor-default bg-black/50"
        onClick={busy ? undefined : onClose}
      />
      <div
        ref={box}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={`${spec.testId}-dialog`}
        className="relative flex max-h-[90dvh] w-full max-w-xl flex-col gap-3 overflow-y-auto rounded border border-line bg-panel p-4 text-sm shadow-xl outline-none"
      >
        <h2 id={titleId} className="text-base font-semibold">
          {spec.title}
        </h2>
        <p>{spec.intro}</p>
        <ul aria-label={spec.title} className="flex flex-col gap-1">
          {spec.items.map((item) => (
            <li
              key={item.key}
              data-testid={`${spec.testId}-item-${item.label}`}
              className="flex flex-wrap gap-2"
            >
              <span className="font-mono font-semibold">{item.label}</span>
              {/* once done, its live detail (a countdown to a fence now cancelled) would mislead */}
              {outcomes.get(item.key)?.state !== 'done' && item.detail}
              {spec.override && !outcomes.has(item.key) && (
                <VerdictText q={previews[spec.items.indexOf(item)]} />
              )}
              <OutcomeText o={outcomes.get(item.key)} words={spec.words} />
            </li>
          ))}
        </ul>
        {!sent && (
          <div className="flex flex-col gap-1">
            <label htmlFor={reasonId}>
              Why (recorded in the cluster's Events, with your name{spec.reasonRequired ? '' : '; optional'})
            </label>
            <ReasonChoices action={spec.action} reason={reason} setReason={setReason} />
            <textarea
              id={reasonId}
              data-testid={`${spec.testId}-reason`}
              value={reason}
              maxLength={500}
              rows={2}
              onChange={(e) => setReason(e.target.value)}
              className="rounded border border-line bg-bg px-1.5 py-1"
            />
            {spec.override && (
              <>
                <label htmlFor={phraseId} className="mt-1">
                  Type <span className="font-mono font-semibold">{spec.override.phrase}</span>{' '}
                  {spec.override.what}
                </label>
                <input
                  id={phraseId}
                  data-testid={`${spec.testId}-phrase`}
                  value={typed}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => setTyped(e.target.value)}
                  className="rounded border border-line bg-bg px-1.5 py-1 font-mono"
                />
              </>
            )}
          </div>
        )}
        <div className="flex items-center gap-2">
          {blocker && !sent && <span className="text-xs text-dim">{blocker}</span>}
          <button
            type="button"
            disabled={busy}
            onClick={onClose}
            className="ml-auto rounded border border-line px-3 py-1 disabled:opacity-50"
          >
            {sent ? 'Close' : spec.words.keep}
          </button>
          {!sent && (
            <button
              type="button"
              data-testid={`${spec.testId}-submit`}
              disabled={!!blocker || busy || spec.items.length === 0}
              onClick={() => void send()}
              className="rounded border border-info bg-info/15 px-3 py-1 font-semibold disabled:opacity-50"
            >
              {spec.words.submit}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

/** A target's live verdict, before sending: what the typed phrase would override. */
function VerdictText({ q }: { q?: { data?: Preview; error: unknown } }) {
  const p = q?.data;
  if (q?.error) return <span className="text-crit">cannot read it: {(q.error as Error).message}</span>;
  if (!p) return <span className="text-dim">reading…</span>;
  if (p.refusal) return <span className="text-crit">refused: {p.refusal}</span>;
  if (p.verdict.safe) return <span className="text-ok">safe</span>;
  return <span className="text-crit">unsafe: {p.verdict.reasons.join('; ')}</span>;
}

function OutcomeText({ o, words }: { o?: Outcome; words: BulkSpec['words'] }) {
  if (!o) return null;
  if (o.state === 'sending')
    return (
      <span role="status" className="text-dim">
        {words.doing}
      </span>
    );
  return (
    <span role="status" data-outcome={o.state} className={o.state === 'done' ? 'text-ok' : 'text-crit'}>
      {o.state === 'done' ? `${words.done}: ${o.text}` : `${words.notDone}: ${o.text}`}
    </span>
  );
}

// The dialog outlives what opened it: cancelling the last fence empties the bar, which then goes,
// and the dialog must stay to show each outcome. One host in the shell (as the guarded-action
// dialog's); the items are the ones shown when it opened.
let opened: { spec: BulkSpec; n: number } | undefined;
let openings = 0;
const listeners = new Set<() => void>();
const setOpened = (o: typeof opened) => {
  opened = o;
  for (const l of listeners) l();
};

export function openBulkAction(spec: BulkSpec): void {
  setOpened({ spec: { ...spec, items: [...spec.items] }, n: ++openings });
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function BulkActionHost() {
  const o = useSyncExternalStore(
    subscribe,
    () => opened,
    () => undefined,
  );
  if (!o) return null;
  return <BulkActionDialog key={o.n} spec={o.spec} onClose={() => setOpened(undefined)} />;
}
