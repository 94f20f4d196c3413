// How a node condition reads at a glance. Ready is good when True; the pressure and
// NetworkUnavailable conditions are good when False. Unknown is never good: it means the
// kubelet stopped reporting, so the panel must not paint it green.
export type ConditionTone = 'ok' | 'bad' | 'unknown';

export function conditionTone(type: string, status: string): ConditionTone {
  if (status !== 'True' && status !== 'False') return 'unknown';
  const healthy = type === 'Ready' ? status === 'True' : status === 'False';
  return healthy ? 'ok' : 'bad';
}

export const CONDITION_TONE_CLASS: Record<ConditionTone, string> = {
  ok: 'text-ok',
  bad: 'text-crit',
  unknown: 'text-warn',
};

/** The panel's label for the Ready condition's last transition: "Ready since", "Unknown since"… */
export function readySinceLabel(ready: 'Ready' | 'NotReady' | 'Unknown'): string {
  return ready === 'Ready' ? 'Ready since' : ready === 'NotReady' ? 'NotReady since' : 'Unknown since';
}
