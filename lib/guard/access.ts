// What RBAC must allow for each guarded action, asked of the cluster before anything is sent,
// so the console can show an action disabled with the reason and refuse it with the cluster's
// own words. The write itself still goes to the API server as the person: this is the
// explanation, the cluster stays the authority.
// - the Kubernetes verb the write needs (delete pods, delete volumeattachments, patch nodes,
//   create pods/eviction to drain or to evict one pod,
//   patch nodefences, patch fencepolicies to pause or resume one);
// - pausing or resuming a FencePolicy also needs the custom verb pause on
//   fencepolicies.palisade.dev (Palisade's webhook enforces it; any other change needs configure);
// - approving or cancelling a fence also needs the custom verbs approve / cancel on
//   nodefences.palisade.dev (Fence now creates one already approved: create and approve) (Palisade's webhook enforces them for kubectl users too);
// - going ahead although the guard judged the action unsafe needs `override` on
//   guards.palisade.dev, named after the action (palisade-operator may override its own three,
//   palisade-admin any).
import type { AccessAttributes } from '../auth/forbidden.js';
import type { IncidentSeverity } from '../incident/record';
import type { GuardedAction } from './actions.js';

export const PALISADE_GROUP = 'palisade.dev';

export type ActionTarget =
  | { action: 'forceDeletePod'; namespace: string; name: string }
  | { action: 'detachVolume'; attachment: string }
  | { action: 'removeOutOfServiceTaint'; node: string }
  | { action: 'approveFence'; fence: string }
  | { action: 'cancelFence'; fence: string }
  | { action: 'fenceNode'; node: string }
  | { action: 'pauseFencePolicy'; policy: string }
  | { action: 'resumeFencePolicy'; policy: string }
  | { action: 'cordonNode'; node: string }
  | { action: 'uncordonNode'; node: string }
  | { action: 'drainNode'; node: string }
  | { action: 'evictPod'; namespace: string; name: string }
  | { action: 'declareIncident'; severity: IncidentSeverity }
  | { action: 'takeIncidentCommand'; incident: string }
  | { action: 'postIncidentUpdate'; incident: string }
  | { action: 'setIncidentSeverity'; incident: string; severity: IncidentSeverity }
  | { action: 'resolveIncident'; incident: string };

const fence = (verb: string, name: string): AccessAttributes => ({
  verb,
  group: PALISADE_GROUP,
  resource: 'nodefences',
  name,
});

/** The access the write needs. */
export function accessForWrite(t: ActionTarget): AccessAttributes[] {
  switch (t.action) {
    case 'forceDeletePod':
      return [{ verb: 'delete', resource: 'pods', namespace: t.namespace, name: t.name }];
    case 'detachVolume':
      return [{ verb: 'delete', group: 'storage.k8s.io', resource: 'volumeattachments', name: t.attachment }];
    case 'removeOutOfServiceTaint':
    case 'cordonNode':
    case 'uncordonNode':
      return [{ verb: 'patch', resource: 'nodes', name: t.node }];
    // the cordon, then an Eviction per pod, in whichever namespace it runs
    case 'drainNode':
      return [
        { verb: 'patch', resource: 'nodes', name: t.node },
        { verb: 'create', resource: 'pods', subresource: 'eviction' },
      ];
    case 'evictPod':
      return [
        { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: t.namespace, name: t.name },
      ];
    case 'approveFence':
      return [fence('patch', t.fence), fence('approve', t.fence)];
    case 'cancelFence':
      return [fence('patch', t.fence), fence('cancel', t.fence)];
    // the NodeFence is named after its node; it runs unapproved by anyone else: approve too
    case 'fenceNode':
      return [fence('create', t.node), fence('approve', t.node)];
    case 'pauseFencePolicy':
    case 'resumeFencePolicy':
      return ['patch', 'pause'].map((verb) => ({
        verb,
        group: PALISADE_GROUP,
        resource: 'fencepolicies',
        name: t.policy,
      }));
    // the incident record: a merge patch of its spec, as the person
    case 'takeIncidentCommand':
    case 'postIncidentUpdate':
    case 'setIncidentSeverity':
    case 'resolveIncident':
      return [{ verb: 'patch', group: PALISADE_GROUP, resource: 'incidents', name: t.incident }];
    // a new one, named after the moment: no name to check before it exists
    case 'declareIncident':
      return [{ verb: 'create', group: PALISADE_GROUP, resource: 'incidents' }];
  }
}

/** The access needed to go ahead when the guard judged the action unsafe. */
export function accessForOverride(action: GuardedAction): AccessAttributes {
  return { verb: 'override', group: PALISADE_GROUP, resource: 'guards', name: action };
}

/** The embedded cluster's simulated faults (partition, power, kubelet crash, meteor). */
export function accessForSimulatedFault(node: string): AccessAttributes {
  return { verb: 'create', group: PALISADE_GROUP, resource: 'simulatedfaults', name: node };
}
