// How a fence ended, as both the state machine (machine.ts) and the Fencing page's buttons read
// it. No runtime imports: the browser bundle takes this file as it is.

interface WithConditions {
  status: { conditions: readonly { type: string; reason?: string | null }[] };
}

/** A person cancelled the fence (its Processing condition says CancelledByUser). */
export const cancelledByUser = (f: WithConditions) =>
  f.status.conditions.find((c) => c.type === 'Processing')?.reason === 'CancelledByUser';
