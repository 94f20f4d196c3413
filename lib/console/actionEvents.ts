// The Kubernetes Event Palisade records for every change it makes from the console, so the
// cluster's own history (kubectl get events, the node panel) says who did what and when.
// Simulated faults on the embedded cluster are recorded too, labelled as simulation.
import type * as k8s from '@kubernetes/client-node';

export const CONSOLE_COMPONENT = 'palisade-console';

const SIMULATED: Record<string, { reason: string; what: string; warning: boolean }> = {
  partition: { reason: 'SimulatedPartition', what: 'network partition from the API server', warning: true },
  heal: { reason: 'SimulatedHeal', what: 'network link restored', warning: false },
  'power-off': { reason: 'SimulatedPowerOff', what: 'powered off through the BMC', warning: true },
  'power-on': { reason: 'SimulatedPowerOn', what: 'powered on through the BMC', warning: false },
  'kubelet-crash': { reason: 'SimulatedKubeletCrash', what: 'kubelet crashed', warning: true },
  'kubelet-restart': { reason: 'SimulatedKubeletRestart', what: 'kubelet restarted', warning: false },
  meteor: { reason: 'SimulatedMeteor', what: 'destroyed for ever (meteor)', warning: true },
};

export interface ActionRecord {
  verb: string;
  node: string;
  nodeUid?: string;
  /** who asked, as far as the console knows */
  by: string;
  at: Date;
  mode: string;
}

/** A core/v1 Event on the Node (namespace default, as kubelets record node events). */
export function simulatedFaultEvent(r: ActionRecord): k8s.CoreV1Event {
  const kind = SIMULATED[r.verb] ?? { reason: 'SimulatedFault', what: r.verb, warning: true };
  const stamp = r.at.getTime().toString(36);
  return {
    metadata: { name: `${r.node}.palisade-${r.verb}-${stamp}`, namespace: 'default' },
    involvedObject: {
      kind: 'Node',
      apiVersion: 'v1',
      name: r.node,
      ...(r.nodeUid ? { uid: r.nodeUid } : {}),
    },
    reason: kind.reason,
    message: `Palisade console (simulation): ${kind.what}; requested by ${r.by}${r.mode === 'normal' ? '' : ` in ${r.mode} mode`}`,
    type: kind.warning ? 'Warning' : 'Normal',
    source: { component: CONSOLE_COMPONENT },
    reportingComponent: CONSOLE_COMPONENT,
    reportingInstance: CONSOLE_COMPONENT,
    action: r.verb,
    firstTimestamp: r.at,
    lastTimestamp: r.at,
    eventTime: r.at as unknown as k8s.V1MicroTime,
    count: 1,
  };
}
