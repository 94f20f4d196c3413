// What comes for a node that is not fenced yet, typed, and the one sentence for what is not a
// wait. Computed by lib/fencing/outlook.ts from the state machine's own decision; this file holds
// only the shape and the words, so the browser bundle can take it as it is.
import type { Phase } from '../fencing/types.js';

/** What comes for a node that is not fenced: typed, so callers word it and tests table it. */
export type FenceOutlook =
  /** no NodeFence yet: `policy` will fence the node at `fenceAt` if nothing changes */
  | {
      code: 'fence-pending';
      node: string;
      policy: string;
      /** when the agent may run; for a Manual policy, when the fence is detected and asks for approval */
      fenceAt: number;
      /** the policy is Manual: the fence waits for a person's approval once detected */
      manual?: true;
    }
  /** a NodeFence is under way (Detected, in its warning window, or Fencing) */
  | { code: 'fence-in-progress'; node: string; fence: string; policy: string; phase: Phase; fenceAt?: number }
  /** a Manual policy's fence waits for a person's approval */
  | { code: 'fence-awaiting-approval'; node: string; fence: string; policy: string }
  /** the fencing budget holds the node's fence (too many nodes unhealthy): no fence comes yet; `why` is the controller's */
  | { code: 'fence-held'; node: string; policy: string; why: string }
  /** the covering policy is paused: no fence comes until someone resumes it */
  | { code: 'fence-paused'; node: string; policy: string }
  /** nothing will fence the node */
  | {
      code: 'no-fence-coming';
      node: string;
      why: 'healthy' | 'no-node' | 'no-policy' | 'not-due' | 'fence-ended' | 'already-fenced';
    };

export type WaitOutlook = Extract<
  FenceOutlook,
  { code: 'fence-pending' | 'fence-in-progress' | 'fence-awaiting-approval' }
>;

/** Outlooks that say "wait": a fence is coming and force delete is safe once it is done. */
export function isWait(o: FenceOutlook | undefined): o is WaitOutlook {
  return (
    o?.code === 'fence-pending' || o?.code === 'fence-in-progress' || o?.code === 'fence-awaiting-approval'
  );
}

/** One sentence for what is not a wait (the verdict's notes). */
export function outlookNote(o: FenceOutlook): string | undefined {
  if (o.code === 'fence-paused')
    return `FencePolicy ${o.policy} is paused: no fence comes for ${o.node} until someone resumes it`;
  if (o.code === 'fence-held')
    return `the fencing budget holds FencePolicy ${o.policy}'s fence of ${o.node} (${o.why}): no fence comes until enough nodes are healthy again`;
  if (o.code === 'no-fence-coming' && o.why === 'no-policy')
    return `no FencePolicy covers ${o.node}: no fence will come on its own`;
  return undefined;
}
