// The words for a coming fence and a duration, as the dialogs and the Volumes page say them.
// No runtime imports: the browser bundle takes this file as it is.
import type { WaitOutlook } from './fenceOutlook.js';

/** "8 s", "2 min", "6 min 30 s": durations as the dialogs say them. */
export function durationWords(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
}

/** The advice the dialog shows while a fence is coming; `now` ticks so the seconds count down. */
export function waitAdvice(o: WaitOutlook, now: number): string {
  const head = `${o.node} is not fenced yet`;
  const then = 'wait for the fence, then force delete is safe';
  switch (o.code) {
    case 'fence-pending':
      if (o.manual)
        return `${head}: FencePolicy ${o.policy} detects it ${o.fenceAt > now ? `in ${durationWords(o.fenceAt - now)}` : 'now'} and asks a person to approve the fence (the policy is Manual); approve it on the Fencing page, wait for the fence, then force delete is safe`;
      return o.fenceAt > now
        ? `${head}: FencePolicy ${o.policy} will fence it in ${durationWords(o.fenceAt - now)}; ${then}`
        : `${head}: FencePolicy ${o.policy} is due to fence it now; ${then}`;
    case 'fence-in-progress':
      return o.fenceAt !== undefined && o.fenceAt > now
        ? `${head}: NodeFence ${o.fence} (FencePolicy ${o.policy}) fences it in ${durationWords(o.fenceAt - now)}; ${then}`
        : `${head}: NodeFence ${o.fence} is ${o.phase}; ${then}`;
    case 'fence-awaiting-approval':
      return `${head}: NodeFence ${o.fence} waits for a person's approval (FencePolicy ${o.policy} is Manual); approve it on the Fencing page, wait for the fence, then force delete is safe`;
  }
}
