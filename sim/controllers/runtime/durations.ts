// Every duration the simulated control plane and kubelets use. Defaults are the real
// Kubernetes ones; profiles shorten them so demos and tests play out in seconds.
export interface Durations {
  /** node-monitor-grace-period: no heartbeat for this long -> Ready=Unknown */
  nodeMonitorGracePeriodMs: number;
  /** how often the node lifecycle controller looks */
  nodeMonitorPeriodMs: number;
  /** kubelet Lease spec.leaseDurationSeconds */
  leaseDurationMs: number;
  /** kubelet renews its Lease this often */
  leaseRenewIntervalMs: number;
  /** kubelet posts NodeStatus this often */
  nodeStatusUpdateMs: number;
  /** attach/detach: force detach from a NotReady node after this long (maxWaitForUnmountDuration) */
  forceDetachTimeoutMs: number;
  forceDetachEnabled: boolean;
  /** pod GC sweep period */
  podGcIntervalMs: number;
  /** kubelet: from volumes attached to containers running */
  containerStartMs: number;
  /** kubelet: from running to Ready, unless the pod says otherwise */
  podReadyDelayMs: number;
  /** attach/detach: time the (simulated) storage takes to attach */
  attachDelayMs: number;
}

export const realDurations: Durations = {
  nodeMonitorGracePeriodMs: 40_000,
  nodeMonitorPeriodMs: 5_000,
  leaseDurationMs: 40_000,
  leaseRenewIntervalMs: 10_000,
  nodeStatusUpdateMs: 10_000,
  forceDetachTimeoutMs: 6 * 60_000,
  forceDetachEnabled: true,
  podGcIntervalMs: 20_000,
  containerStartMs: 1_000,
  podReadyDelayMs: 2_000,
  attachDelayMs: 500,
};

export function scaled(d: Partial<Durations>): Durations {
  return { ...realDurations, ...d };
}
