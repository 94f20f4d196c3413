// The Kubernetes Event Palisade records for every change it makes from the console, so the
// cluster's own history (kubectl get events, the node panel) says who did what and when.
// Simulated faults on the embedded cluster are recorded too, labelled as simulation.
import type * as k8s from '@kubernetes/client-node';
import { microTime } from '../protection/buckets.js';

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

/** The simulated fault's verb (partition, heal...) from its Event reason; undefined for others. */
export function simulatedVerbOf(reason: string | undefined): string | undefined {
  return Object.keys(SIMULATED).find((v) => SIMULATED[v].reason === reason);
}

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

// ---- guarded actions (force delete, detach, out-of-service taint, fence approve / cancel)

export interface GuardedActionRecord {
  /** the Event reason, e.g. PalisadeForceDelete (lib/guard/actions.ts) */
  reason: string;
  /** the action's name, e.g. forceDeletePod */
  action: string;
  /** the object acted on; a namespaced one gets the Event in its namespace, others in default */
  involved: k8s.V1ObjectReference;
  /** e.g. the pod's node, the attachment's PersistentVolume */
  related?: k8s.V1ObjectReference;
  /** the message (lib/guard/audit.ts auditMessage: what, verdict, who, why) */
  message: string;
  overridden: boolean;
  by: string;
  /** how the console acted for them: console-credentials | impersonation */
  via: string;
  why: string;
  at: Date;
}

/** A core/v1 Event recording a guarded action: Warning when a person overrode the guard. */
export function guardedActionEvent(r: GuardedActionRecord): k8s.CoreV1Event {
  const namespace = r.involved.namespace || 'default';
  const stamp = r.at.getTime().toString(36);
  const name = `${(r.involved.name ?? 'object').slice(0, 200)}.palisade-${r.action.toLowerCase()}-${stamp}`;
  return {
    metadata: {
      name,
      namespace,
      annotations: {
        'palisade.dev/actor': r.by,
        'palisade.dev/actor-via': r.via,
        'palisade.dev/verdict': r.overridden ? 'overridden' : 'safe',
        'palisade.dev/reason': r.why,
      },
    },
    involvedObject: r.involved,
    ...(r.related ? { related: r.related } : {}),
    reason: r.reason,
    message: r.message,
    type: r.overridden ? 'Warning' : 'Normal',
    source: { component: CONSOLE_COMPONENT },
    reportingComponent: CONSOLE_COMPONENT,
    reportingInstance: CONSOLE_COMPONENT,
    action: r.action,
    // eventTime only: first/lastTimestamp keep whole seconds, and the audit orders by this one.
    // A metav1.MicroTime: kube-apiserver parses exactly six fractional digits (not a Date's three)
    eventTime: microTime(r.at.getTime()) as unknown as k8s.V1MicroTime,
    count: 1,
  };
}
