// The steps of a pod's termination (seed 003) as a kubelet takes them: what the embedded
// cluster's kubelets record and what the console's timeline draws.
export type TerminationStepName =
  | 'observed'
  | 'preStop-started'
  | 'preStop-finished'
  | 'preStop-cut-short'
  | 'SIGTERM'
  | 'exited'
  | 'SIGKILL'
  | 'status-reported'
  | 'removed'
  | 'kubelet-restarted';
