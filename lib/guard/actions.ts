// The console's guarded actions: their Event reasons (the cluster's record of each), their
// labels, and whether they are destructive (sent only after the dialog's 5-second countdown).
export const GUARDED_ACTIONS = {
  forceDeletePod: { reason: 'PalisadeForceDelete', label: 'Force delete pod', destructive: true },
  detachVolume: { reason: 'PalisadeDetach', label: 'Detach volume', destructive: true },
  removeOutOfServiceTaint: {
    reason: 'PalisadeOutOfServiceTaintRemoved',
    label: 'Remove out-of-service taint',
    destructive: true,
  },
  approveFence: { reason: 'PalisadeFenceApproved', label: 'Approve fence', destructive: true },
  cancelFence: { reason: 'PalisadeFenceCancelled', label: 'Cancel fence', destructive: false },
  // a person fences a node now (the budget holds its fence, or its fence failed or was cancelled)
  fenceNode: { reason: 'PalisadeFenceRequested', label: 'Fence node now', destructive: true },
  pauseFencePolicy: { reason: 'PalisadeFencePolicyPaused', label: 'Pause fence policy', destructive: false },
  // resuming lets held fences run their agents at once: counted down like any destructive action
  resumeFencePolicy: {
    reason: 'PalisadeFencePolicyResumed',
    label: 'Resume fence policy',
    destructive: true,
  },
  // the node's schedulability, as kubectl cordon/uncordon/drain (issue 25: the node panel's actions)
  cordonNode: { reason: 'PalisadeNodeCordoned', label: 'Cordon node', destructive: false },
  uncordonNode: { reason: 'PalisadeNodeUncordoned', label: 'Uncordon node', destructive: false },
  // evicts every pod kubectl drain would: counted down like any destructive action
  drainNode: { reason: 'PalisadeNodeDrained', label: 'Drain node', destructive: true },
  // one pod, through the Eviction API: the Placement's rebalance (issue 25)
  evictPod: { reason: 'PalisadePodEvicted', label: 'Evict pod', destructive: true },
  // the incident record (issue 25): changes to the record, not to the cluster
  declareIncident: { reason: 'PalisadeIncidentDeclared', label: 'Declare an incident', destructive: false },
  takeIncidentCommand: { reason: 'PalisadeIncidentCommand', label: 'Take command', destructive: false },
  postIncidentUpdate: { reason: 'PalisadeIncidentUpdate', label: 'Post a status update', destructive: false },
  setIncidentSeverity: { reason: 'PalisadeIncidentSeverity', label: 'Set severity', destructive: false },
  resolveIncident: { reason: 'PalisadeIncidentResolved', label: 'Resolve incident', destructive: false },
} as const;

export type GuardedAction = keyof typeof GUARDED_ACTIONS;
export const GUARDED_ACTION_NAMES = Object.keys(GUARDED_ACTIONS) as GuardedAction[];

export function actionOfReason(reason: string | undefined): GuardedAction | undefined {
  return GUARDED_ACTION_NAMES.find((a) => GUARDED_ACTIONS[a].reason === reason);
}

/** The dialog's countdown before a destructive action is sent. */
export const COUNTDOWN_SECONDS = 5;
/** The longest reason a person may type (it goes into an Event message). */
export const MAX_REASON_LENGTH = 500;
