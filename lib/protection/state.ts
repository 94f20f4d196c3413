// How a protector stands, as the console shows it: healthy; at floor (no deletion
// would be admitted now); blocking (recent deletions were refused); dangling (the core no
// longer has it, yet the webhook keeps protecting from its last copy).
import type { Summary } from './status.js';

export type ProtectorState = 'healthy' | 'at-floor' | 'blocking' | 'dangling';

export function protectorState(
  minAvailable: number,
  summary: Pick<Summary, 'aggregatedAvailableReplicas' | 'estimatedAvailableReplicas'>,
  opts: { dangling: boolean; recentDenials: number },
): ProtectorState {
  if (opts.dangling) return 'dangling';
  if (opts.recentDenials > 0) return 'blocking';
  if (Math.min(summary.aggregatedAvailableReplicas, summary.estimatedAvailableReplicas) <= minAvailable)
    return 'at-floor';
  return 'healthy';
}

export const STATE_LABEL: Record<ProtectorState, string> = {
  healthy: 'Healthy',
  'at-floor': 'At floor',
  blocking: 'Blocking',
  dangling: 'Dangling',
};
