// One confirmation for many guarded actions (issue 25, item 5: "fence all held"). A bulk action
// normally leaves to its own dialog every target whose guard wants a typed name: one reason for
// many never overrides a guard. A bulk *override* may, when the person has seen each target's
// verdict in the dialog and typed a phrase that names the whole set ("fence 3 nodes"): each
// target is then still its own action through the seam, confirmed with its own name, recorded as
// overridden with the person's reason. A refusal stays a refusal. Pure.
import type { DialogNeeds } from './dialog.js';

/** "fence 3 nodes", "fence 1 node": what the person types to override for all of them */
export function bulkPhrase(verb: string, n: number, noun: string, nouns = `${noun}s`): string {
  return `${verb} ${n} ${n === 1 ? noun : nouns}`;
}

export type BulkStep =
  /** send it with these confirmation fields */
  | { send: true; confirm?: string; acknowledged?: true }
  /** left to its own dialog, and why */
  | { send: false; why: string };

export interface BulkStepInput {
  needs: DialogNeeds;
  /** the guard's first reason, when unsafe */
  reason?: string;
  label: string;
  /** the phrase the dialog asks for; undefined: no bulk override offered */
  phrase?: string;
  typed: string;
}

/** What one target of a bulk action sends, after its fresh preview. */
export function bulkStep({ needs, reason, label, phrase, typed }: BulkStepInput): BulkStep {
  const confirming = needs.typedName || needs.acknowledge;
  if (!confirming) return { send: true };
  if (phrase !== undefined && typed === phrase)
    return {
      send: true,
      ...(needs.typedName ? { confirm: needs.name } : {}),
      ...(needs.acknowledge ? { acknowledged: true as const } : {}),
    };
  return {
    send: false,
    why: `${label} needs its own confirmation${reason ? ` (${reason})` : ''}: use its own dialog`,
  };
}
