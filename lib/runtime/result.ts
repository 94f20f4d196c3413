// What a reconcile tells the controller runtime: done, or look again after a while and why.
// The why is a typed field of the reconciler's own vocabulary ('budget', 'approval', …), never
// message text that callers parse.

export type Result<Reason extends string = string> =
  | { done: true }
  | { requeueAfter: number; reason: Reason };

export const done = { done: true } as const;

export const requeueAfter = <R extends string>(ms: number, reason: R): Result<R> => ({
  requeueAfter: Math.max(0, ms),
  reason,
});

export const isRequeue = <R extends string>(r: Result<R>): r is { requeueAfter: number; reason: R } =>
  'requeueAfter' in r;

/** What the queue does with a key after its reconcile: forget its failures, and when to add it again. */
export type After = { forgetFailures: boolean; addAfterMs?: number };

/**
 * A success (done or requeueAfter) forgets the key's failures; requeueAfter adds it again after
 * the delay; an error adds it again after the key's backoff (computed by the caller from its
 * failure count), so one failing object never holds the others up.
 */
export function afterReconcile<R extends string>(
  outcome: { result: Result<R> } | { error: unknown },
  backoffMs: () => number,
): After {
  if ('error' in outcome) return { forgetFailures: false, addAfterMs: backoffMs() };
  const r = outcome.result;
  return isRequeue(r) ? { forgetFailures: true, addAfterMs: r.requeueAfter } : { forgetFailures: true };
}
