import { describe, expect, it } from 'vitest';
import { forbiddenMessage } from '../auth/forbidden.js';
import { accessForOverride, accessForSimulatedFault, accessForWrite, type ActionTarget } from './access.js';

describe('the access each guarded action needs', () => {
  const cases: [ActionTarget, string[]][] = [
    [
      { action: 'forceDeletePod', namespace: 'shop', name: 'db-0' },
      [
        'pods "db-0" is forbidden: User "v" cannot delete resource "pods" in API group "" in the namespace "shop"',
      ],
    ],
    [
      { action: 'detachVolume', attachment: 'csi-1' },
      [
        'volumeattachments.storage.k8s.io "csi-1" is forbidden: User "v" cannot delete resource "volumeattachments" in API group "storage.k8s.io" at the cluster scope',
      ],
    ],
    [
      { action: 'removeOutOfServiceTaint', node: 'a1-1' },
      [
        'nodes "a1-1" is forbidden: User "v" cannot patch resource "nodes" in API group "" at the cluster scope',
      ],
    ],
    [
      { action: 'approveFence', fence: 'a1-1' },
      [
        'nodefences.palisade.dev "a1-1" is forbidden: User "v" cannot patch resource "nodefences" in API group "palisade.dev" at the cluster scope',
        'nodefences.palisade.dev "a1-1" is forbidden: User "v" cannot approve resource "nodefences" in API group "palisade.dev" at the cluster scope',
      ],
    ],
    [
      { action: 'cancelFence', fence: 'a1-1' },
      [
        'nodefences.palisade.dev "a1-1" is forbidden: User "v" cannot patch resource "nodefences" in API group "palisade.dev" at the cluster scope',
        'nodefences.palisade.dev "a1-1" is forbidden: User "v" cannot cancel resource "nodefences" in API group "palisade.dev" at the cluster scope',
      ],
    ],
    [
      { action: 'pauseFencePolicy', policy: 'demo' },
      [
        'fencepolicies.palisade.dev "demo" is forbidden: User "v" cannot patch resource "fencepolicies" in API group "palisade.dev" at the cluster scope',
        'fencepolicies.palisade.dev "demo" is forbidden: User "v" cannot pause resource "fencepolicies" in API group "palisade.dev" at the cluster scope',
      ],
    ],
    [
      { action: 'resumeFencePolicy', policy: 'demo' },
      [
        'fencepolicies.palisade.dev "demo" is forbidden: User "v" cannot patch resource "fencepolicies" in API group "palisade.dev" at the cluster scope',
        'fencepolicies.palisade.dev "demo" is forbidden: User "v" cannot pause resource "fencepolicies" in API group "palisade.dev" at the cluster scope',
      ],
    ],
  ];
  it.each(cases)('%j', (t, messages) =>
    expect(accessForWrite(t).map((a) => forbiddenMessage(a, 'v'))).toEqual(messages),
  );

  it('overriding a guard is its own permission, named after the action', () =>
    expect(forbiddenMessage(accessForOverride('forceDeletePod'), 'v')).toBe(
      'guards.palisade.dev "forceDeletePod" is forbidden: User "v" cannot override resource "guards" in API group "palisade.dev" at the cluster scope',
    ));

  it('simulated faults are created on a node', () =>
    expect(forbiddenMessage(accessForSimulatedFault('c1-2'), 'viewer')).toBe(
      'simulatedfaults.palisade.dev "c1-2" is forbidden: User "viewer" cannot create resource "simulatedfaults" in API group "palisade.dev" at the cluster scope',
    ));
});
