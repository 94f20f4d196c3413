// The guarded-action dialog's rules, pure so they are table-tested: what still stops the submit
// button, and what the request then carries. The server checks all of it again (the seam); the
// dialog only keeps a person from sending what will be refused.
export interface DialogNeeds {
  /** the name to type */
  name: string;
  typedName: boolean;
  reason: boolean;
}

export interface DialogInput {
  needs: DialogNeeds;
  /** set when the action is refused whatever is typed */
  refusal?: string;
  typed: string;
  reason: string;
}

/** Why the action cannot be sent yet, or undefined when it can. */
export function submitBlocker(i: DialogInput): string | undefined {
  if (i.refusal) return i.refusal;
  if (i.needs.typedName && i.typed !== i.needs.name)
    return i.typed ? `"${i.typed}" does not match "${i.needs.name}"` : `type "${i.needs.name}" to confirm`;
  if (i.needs.reason && !i.reason.trim()) return 'give a reason';
  return undefined;
}

/** The submission's confirmation fields: only what the action needs, the reason trimmed. */
export function submissionOf(i: DialogInput): { confirm?: string; reason?: string } {
  return {
    ...(i.needs.typedName ? { confirm: i.typed } : {}),
    ...(i.reason.trim() ? { reason: i.reason.trim() } : {}),
  };
}
