'use client';
// The one dialog every guarded action uses. It shows the server's live preview — what will
// happen, what can go wrong (the guard's reasons and kubectl's warning), whether the node is
// fenced, the server-side dry run — asks for the object's name and a reason when the action is
// unsafe (or the cluster protected), and sends a destructive action only after a visible
// 5-second countdown that can be cancelled. The server decides again on live objects when it
// receives it: this dialog is the explanation, the seam is the guard.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { useModal } from '../console/useModal';
import { reasonLabel, submissionOf, submitBlocker } from '@/lib/guard/dialog';
import { type ActionTarget, type Performed, type Preview, useActionsApi } from './api';
import { AcknowledgeBox, FenceWait, submitWords } from './FenceWait';
import { ReasonChoices } from './ReasonChoices';
import { TimeLeft } from './TimeLeft';
import { useCountdown } from './useCountdown';
import { openGuardedAction } from './hostStore';
import { useLivePreview } from './useLivePreview';

export interface GuardedActionDialogProps {
  target: ActionTarget;
  onClose: () => void;
  onDone?: (r: Performed) => void;
}

export function GuardedActionDialog({ target, onClose, onDone }: GuardedActionDialogProps) {
  const api = useActionsApi();
  const qc = useQueryClient();
  const [typed, setTyped] = useState('');
  const [reason, setReason] = useState('');
  const [acknowledged, setAcknowledged] = useState(false);
  const [held, setHeld] = useState(false);
  // live while open; still while counting down or once sent: what the person reviews is what
  // the write is made conditional on
  const { preview, gone } = useLivePreview(target, held);
  const perform = useMutation(
    api.perform.mutationOptions({
      onSuccess: (r) => {
        void qc.invalidateQueries({ queryKey: api.audit.pathKey() });
        onDone?.(r);
      },
    }),
  );
  const p = preview.data;
  const input = p && { needs: p.needs, refusal: p.refusal, typed, reason, acknowledged };
  const send = () => {
    if (!p || !input || submitBlocker(input)) return;
    perform.mutate({
      ...target,
      ...submissionOf(input),
      expect: { uid: p.target.uid, resourceVersion: p.target.resourceVersion },
    } as Parameters<typeof perform.mutate>[0]);
  };
  const countdown = useCountdown(p?.countdownSeconds ?? 5, send);
  // a countdown stopped in time: say plainly that nothing went to the cluster
  const [stopped, setStopped] = useState(false);
  const cancelCountdown = () => {
    countdown.cancel();
    setStopped(true);
    // the Cancel button goes with the countdown: keep the focus in the dialog
    box.current?.focus();
  };
  const hold = countdown.running || !perform.isIdle;
  useEffect(() => setHeld(hold), [hold]);
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  // Escape cancels the countdown, else closes; Tab stays in the dialog
  useModal(box, () => (countdown.running ? cancelCountdown() : onClose()));
  const reviewAgain = () => {
    perform.reset();
    void preview.refetch();
  };

  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center p-4">
      <button
        type="button"
        aria-label="Close"
        tabIndex={-1}
        className="absolute inset-0 cursor-default bg-black/50"
        onClick={countdown.running ? undefined : onClose}
      />
      {/* the title and the buttons stay in view, the explanation scrolls between them */}
      <div
        ref={box}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="guarded-dialog"
        className="relative flex max-h-[90dvh] w-full max-w-xl flex-col rounded border border-line bg-panel text-sm shadow-xl outline-none"
      >
        <h2 id={titleId} className="shrink-0 border-b border-line px-4 py-3 text-base font-semibold">
          {p ? `${p.label}: ${targetText(p)}` : 'Guarded action'}
        </h2>
        {/* focusable, so that a keyboard alone can scroll it when it holds no field */}
        <section
          data-testid="guarded-body"
          aria-label="What this action does"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to scroll by keyboard
          tabIndex={0}
          className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto px-4 py-3 outline-none focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-info"
        >
          {!perform.isSuccess && <TimeLeft target={target} />}
          {preview.isPending && <p className="text-dim">Reading the objects live from the cluster…</p>}
          {preview.isError && (
            <p className="text-crit">Cannot prepare this action: {preview.error.message}</p>
          )}
          {p && gone && !perform.isSuccess && (
            <p data-testid="guarded-gone" className="font-semibold text-warn">
              Pod {targetText(p)} (uid {p.target.uid}) is no longer in the API: what follows is its last
              reading.
            </p>
          )}
          {p && <PreviewBody p={p} updatedAt={preview.dataUpdatedAt} />}
          {p && !perform.isSuccess && <FenceInstead p={p} cluster={target.cluster} />}
          {p && !p.refusal && !perform.isSuccess && (
            <ConfirmInputs
              p={p}
              typed={typed}
              setTyped={setTyped}
              reason={reason}
              setReason={setReason}
              acknowledged={acknowledged}
              setAcknowledged={setAcknowledged}
            />
          )}
        </section>
        <div className="flex shrink-0 flex-col gap-2 border-t border-line px-4 py-3">
          <Outcome
            pending={perform.isPending}
            result={perform.data}
            error={perform.error}
            stopped={stopped && !countdown.running && !perform.isPending && !perform.data}
            onReview={reviewAgain}
          />
          <Footer
            p={p}
            blocker={input && submitBlocker(input)}
            countdown={countdown}
            onCancelCountdown={cancelCountdown}
            busy={perform.isPending}
            done={perform.isSuccess}
            onSubmit={() => {
              setStopped(false);
              if (p?.destructive) countdown.start();
              else send();
            }}
            onClose={onClose}
          />
        </div>
      </div>
    </div>
  );
}

/**
 * A force delete refused or unsafe because the node is not fenced: the safe way to the same end
 * is to fence it (its pods are then released, no split brain), one click away (issue 25, finding 7).
 */
function FenceInstead({ p, cluster }: { p: Preview; cluster: string }) {
  if (p.action !== 'forceDeletePod' || p.verdict.safe || !p.node?.exists || p.node.fenced) return null;
  const node = p.node.name;
  return (
    <p
      className="flex flex-wrap items-center gap-2 rounded border border-info/60 p-2"
      data-testid="guarded-fence-instead"
    >
      <span>
        The safe way to the same end: fence <span className="font-mono">{node}</span>; its pods are then
        released and start elsewhere, with no second copy running.
      </span>
      <button
        type="button"
        onClick={() => openGuardedAction({ action: 'fenceNode', cluster, node })}
        className="rounded border border-info bg-info/15 px-2 py-0.5 text-xs font-semibold"
      >
        Fence {node} now instead…
      </button>
    </p>
  );
}

function targetText(p: Preview) {
  const t = p.target;
  return t.namespace ? `${t.namespace}/${t.name}` : t.name;
}

function Section({ title, children, tone }: { title: string; children: React.ReactNode; tone?: string }) {
  return (
    <section aria-label={title} className={`rounded border p-2 ${tone ?? 'border-line'}`}>
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">{title}</h3>
      {children}
    </section>
  );
}

function Bullets({ lines, className = '' }: { lines: readonly string[]; className?: string }) {
  return (
    <ul className={`flex list-disc flex-col gap-1 pl-4 ${className}`}>
      {lines.map((l) => (
        <li key={l}>{l}</li>
      ))}
    </ul>
  );
}

function PreviewBody({ p, updatedAt }: { p: Preview; updatedAt: number }) {
  const v = p.verdict;
  // the node line below says it already
  const notes = v.notes.filter((n) => n !== p.node?.fence);
  return (
    <>
      <p className={`font-semibold ${v.safe ? 'text-ok' : 'text-crit'}`} data-testid="guarded-verdict">
        {v.safe ? 'Safe' : v.overridable ? 'Unsafe: read what can go wrong' : 'Refused'}
        {p.mode !== 'normal' && <span className="ml-2 font-normal text-warn">({p.mode} cluster)</span>}
      </p>
      {p.refusal && <p className="text-crit">{p.refusal}</p>}
      {!v.safe && v.wait && <FenceWait wait={v.wait} updatedAt={updatedAt} />}
      <Section title="What will happen">
        <Bullets lines={p.will} />
      </Section>
      <Section title="What can go wrong" tone={v.safe ? 'border-line' : 'border-crit/60 bg-crit/5'}>
        {!v.safe && <Bullets lines={v.reasons} className="text-crit" />}
        {v.warnings.map((w) => (
          <p key={w} className="mt-1 rounded bg-warn/10 p-1.5 text-warn">
            kubectl: “{w}”
          </p>
        ))}
        {notes.length > 0 && <Bullets lines={notes} className="mt-1 text-dim" />}
        {v.safe && v.warnings.length === 0 && notes.length === 0 && <p className="text-dim">nothing known</p>}
      </Section>
      {p.node && (
        <p data-testid="guarded-node" className={p.node.fenced ? 'text-ok' : 'text-warn'}>
          Node <span className="font-mono">{p.node.name}</span>:{' '}
          {p.node.exists ? `Ready=${p.node.ready ?? 'Unknown'}` : 'the Node object is gone'} · {p.node.fence}
        </p>
      )}
      <Section title="Server-side dry run">
        <p data-testid="guarded-dry-run" className={p.dryRun.ran && !p.dryRun.ok ? 'text-crit' : ''}>
          {p.dryRun.message}
        </p>
      </Section>
    </>
  );
}

function ConfirmInputs(props: {
  p: Preview;
  typed: string;
  setTyped: (s: string) => void;
  reason: string;
  setReason: (s: string) => void;
  acknowledged: boolean;
  setAcknowledged: (v: boolean) => void;
}) {
  const { p } = props;
  const nameId = useId();
  const reasonId = useId();
  if (!p.needs.typedName && !p.needs.reason && !p.needs.acknowledge) return null;
  return (
    <div className="flex flex-col gap-2 rounded border border-crit/50 p-2">
      {p.needs.acknowledge && (
        <AcknowledgeBox checked={props.acknowledged} onChange={props.setAcknowledged} />
      )}
      {p.needs.typedName && (
        <label htmlFor={nameId} className="flex flex-col gap-1">
          <span>
            Type <span className="font-mono font-semibold">{p.needs.name}</span> to confirm
          </span>
          <input
            id={nameId}
            data-testid="guarded-confirm-input"
            value={props.typed}
            onChange={(e) => props.setTyped(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            className="rounded border border-line bg-bg px-1.5 py-1 font-mono"
          />
        </label>
      )}
      {p.needs.reason && (
        <div className="flex flex-col gap-1">
          <label htmlFor={reasonId}>{reasonLabel(p.action)}</label>
          <ReasonChoices action={p.action} reason={props.reason} setReason={props.setReason} />
          <textarea
            id={reasonId}
            data-testid="guarded-reason-input"
            value={props.reason}
            maxLength={500}
            rows={2}
            onChange={(e) => props.setReason(e.target.value)}
            className="rounded border border-line bg-bg px-1.5 py-1"
          />
        </div>
      )}
    </div>
  );
}

function Outcome(props: {
  pending: boolean;
  result?: Performed;
  error: unknown;
  /** the countdown was cancelled before it ran out */
  stopped: boolean;
  onReview: () => void;
}) {
  const err = props.error as { message?: string; data?: { code?: string } } | null;
  return (
    <div role="status" data-testid="guarded-result">
      {props.stopped && (
        <p data-testid="guarded-nothing-sent" className="font-semibold">
          Cancelled: nothing was sent to the cluster.
        </p>
      )}
      {props.pending && <span className="text-dim">Sending…</span>}
      {props.result && (
        <p className="text-ok">
          Done: {props.result.outcome}.{' '}
          {props.result.recorded ? (
            <span className="text-dim">Recorded as Event {props.result.event}.</span>
          ) : (
            <span className="text-warn">Not recorded: {props.result.recordError}</span>
          )}
        </p>
      )}
      {err && (
        <p className="text-crit">
          {err.message}{' '}
          {err.data?.code === 'CONFLICT' && (
            <button type="button" onClick={props.onReview} className="ml-1 underline">
              Review again
            </button>
          )}
        </p>
      )}
    </div>
  );
}

function Footer(props: {
  p?: Preview;
  blocker?: string;
  countdown: ReturnType<typeof useCountdown>;
  onCancelCountdown: () => void;
  busy: boolean;
  done: boolean;
  onSubmit: () => void;
  onClose: () => void;
}) {
  const { p, countdown } = props;
  const cancelRef = useRef<HTMLButtonElement>(null);
  // while it counts down, Enter or Space cancels: the safe key is the one under the finger
  useEffect(() => {
    if (countdown.running) cancelRef.current?.focus();
  }, [countdown.running]);
  if (countdown.running)
    return (
      <div className="flex items-center gap-2 rounded border border-crit bg-crit/10 p-2">
        <span data-testid="guarded-countdown" aria-live="assertive" className="font-semibold text-crit">
          Sending in {countdown.left} s…
        </span>
        <button
          type="button"
          data-testid="guarded-cancel"
          ref={cancelRef}
          onClick={props.onCancelCountdown}
          className="ml-auto rounded border border-line bg-panel-2 px-3 py-1 font-semibold"
        >
          Cancel
        </button>
      </div>
    );
  const unsafe = p && !p.verdict.safe;
  const waiting = p && !p.verdict.safe && !!p.verdict.wait;
  return (
    <div className="flex items-center gap-2">
      {props.blocker && !props.done && <span className="text-xs text-dim">{props.blocker}</span>}
      <button type="button" onClick={props.onClose} className="ml-auto rounded border border-line px-3 py-1">
        {props.done ? 'Close' : 'Cancel'}
      </button>
      {p && !props.done && (
        <button
          type="button"
          data-testid="guarded-submit"
          disabled={!!props.blocker || props.busy}
          onClick={props.onSubmit}
          className={`rounded border px-3 py-1 font-semibold disabled:opacity-50 ${
            // with a fence coming, overriding is not the main path: the wait above is
            unsafe
              ? waiting
                ? 'border-crit text-crit'
                : 'border-crit bg-crit text-on-fill'
              : 'border-info bg-info/15'
          }`}
        >
          {submitWords(p)}
        </button>
      )}
    </div>
  );
}
