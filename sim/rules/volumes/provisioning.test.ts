import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planProvisionedVolume, provisioningFailedMessage } from './provisioning.js';

const claim = (spec: Partial<k8s.V1PersistentVolumeClaimSpec> = {}): k8s.V1PersistentVolumeClaim => ({
  metadata: { namespace: 'db', name: 'data', uid: 'u1', resourceVersion: '7' },
  spec: {
    storageClassName: 'sc',
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '5Gi' } },
    ...spec,
  },
});

const zones = (...terms: string[][]): k8s.V1TopologySelectorTerm[] =>
  terms.map((values) => ({ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values }] }));

const sc = (extra: Partial<k8s.V1StorageClass> = {}): k8s.V1StorageClass => ({
  metadata: { name: 'sc' },
  provisioner: 'sim.palisade.dev',
  ...extra,
});

const node = (zone?: string) => ({
  name: 'n1',
  labels: (zone ? { 'topology.kubernetes.io/zone': zone } : {}) as Record<string, string>,
});
const wffc = (allowedTopologies?: k8s.V1TopologySelectorTerm[]) =>
  sc({ volumeBindingMode: 'WaitForFirstConsumer', allowedTopologies });

describe('planProvisionedVolume', () => {
  it('creates a CSI volume pre-bound to the claim, with the class defaults', () => {
    const plan = planProvisionedVolume({ claim: claim(), storageClass: sc(), driver: 'sim.palisade.dev' });
    if (!plan.ok) throw new Error(plan.error);
    const v = plan.volume;
    expect(v.metadata?.name).toBe('pvc-u1');
    expect(v.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('sim.palisade.dev');
    expect(v.spec?.csi).toMatchObject({ driver: 'sim.palisade.dev', volumeHandle: 'pvc-u1' });
    expect(v.spec?.claimRef).toMatchObject({
      namespace: 'db',
      name: 'data',
      uid: 'u1',
      kind: 'PersistentVolumeClaim',
    });
    expect(v.spec?.capacity).toEqual({ storage: '5Gi' });
    expect(v.spec?.accessModes).toEqual(['ReadWriteOnce']);
    expect(v.spec?.persistentVolumeReclaimPolicy).toBe('Delete');
    expect(v.spec?.storageClassName).toBe('sc');
    expect(v.spec?.nodeAffinity).toBeUndefined();
  });

  it('takes the reclaim policy from the class', () => {
    const plan = planProvisionedVolume({
      claim: claim(),
      storageClass: sc({ reclaimPolicy: 'Retain' }),
      driver: 'd',
    });
    expect(plan.ok && plan.volume.spec?.persistentVolumeReclaimPolicy).toBe('Retain');
  });

  const affinity = (terms: string[][]) => ({
    required: {
      nodeSelectorTerms: terms.map((values) => ({
        matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values }],
      })),
    },
  });

  const cases: {
    name: string;
    cls: k8s.V1StorageClass;
    selected?: string;
    node?: { name: string; labels: Record<string, string> };
    claim?: k8s.V1PersistentVolumeClaim;
    affinity?: unknown;
    error?: string;
  }[] = [
    {
      name: 'Immediate with topologies: all of them',
      cls: sc({ allowedTopologies: zones(['a'], ['b']) }),
      affinity: affinity([['a'], ['b']]),
    },
    {
      name: 'WFFC: only the terms with the node',
      cls: wffc(zones(['a', 'b'], ['c'])),
      selected: 'n1',
      node: node('b'),
      affinity: affinity([['a', 'b']]),
    },
    { name: 'WFFC without topologies: reachable everywhere', cls: wffc(), selected: 'n1', node: node('a') },
    {
      name: 'WFFC: node outside the topologies',
      cls: wffc(zones(['a'])),
      selected: 'n1',
      node: node('c'),
      error:
        'error generating accessibility requirements: selected node "n1" topology "topology.kubernetes.io/zone=c" is not in allowed topologies',
    },
    {
      name: 'WFFC: unlabelled node',
      cls: wffc(zones(['a'])),
      selected: 'n1',
      node: node(),
      error:
        'error generating accessibility requirements: selected node "n1" topology "topology.kubernetes.io/zone=" is not in allowed topologies',
    },
    {
      name: 'WFFC: node gone',
      cls: wffc(zones(['a'])),
      selected: 'n9',
      error: 'failed to get target node: node "n9" not found',
    },
    { name: 'WFFC: no selected node', cls: wffc(), error: 'the claim has no selected node' },
    { name: 'RWX is served', cls: sc(), claim: claim({ accessModes: ['ReadWriteMany'] }) },
    { name: 'RWOP is served', cls: sc(), claim: claim({ accessModes: ['ReadWriteOncePod'] }) },
    {
      name: 'ROX is not',
      cls: sc(),
      claim: claim({ accessModes: ['ReadOnlyMany'] }),
      error:
        'rpc error: code = InvalidArgument desc = volume capability access mode ReadOnlyMany is not supported by driver sim.palisade.dev',
    },
    {
      name: 'selector',
      cls: sc(),
      claim: claim({ selector: { matchLabels: { a: 'b' } } }),
      error: 'claim Selector is not supported',
    },
    {
      name: 'no request',
      cls: sc(),
      claim: claim({ resources: {} }),
      error: 'claim.Spec.Resources.Requests[storage] is missing or invalid',
    },
  ];
  it.each(cases)('$name', (c) => {
    const plan = planProvisionedVolume({
      claim: c.claim ?? claim(),
      storageClass: c.cls,
      driver: 'sim.palisade.dev',
      selectedNodeName: c.selected,
      selectedNode: c.node,
    });
    if (c.error) return expect(plan).toEqual({ ok: false, error: c.error });
    if (!plan.ok) throw new Error(plan.error);
    expect(plan.volume.spec?.nodeAffinity).toEqual(c.affinity);
  });

  it('words failures like the external-provisioner', () => {
    expect(provisioningFailedMessage('gold', 'boom')).toBe(
      'failed to provision volume with StorageClass "gold": boom',
    );
  });
});
