import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { accessModesSatisfy, findMatchingVolume, isVolumeBoundToClaim } from './binding.js';

const claim = (spec: Partial<k8s.V1PersistentVolumeClaimSpec> = {}): k8s.V1PersistentVolumeClaim => ({
  metadata: { namespace: 'db', name: 'data', uid: 'c1' },
  spec: {
    storageClassName: 'gold',
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '10Gi' } },
    ...spec,
  },
});

const pv = (
  name: string,
  spec: Partial<k8s.V1PersistentVolumeSpec> = {},
  extra: { phase?: string; labels?: Record<string, string>; deleting?: boolean } = {},
): k8s.V1PersistentVolume => ({
  metadata: {
    name,
    labels: extra.labels,
    deletionTimestamp: extra.deleting ? new Date() : undefined,
  },
  spec: { storageClassName: 'gold', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' }, ...spec },
  status: { phase: extra.phase ?? 'Available' },
});

const zoneA = {
  required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] },
};

describe('findMatchingVolume', () => {
  const cases: {
    name: string;
    claim?: k8s.V1PersistentVolumeClaim;
    volumes: k8s.V1PersistentVolume[];
    delay?: boolean;
    node?: { name: string; labels: Record<string, string> };
    want?: string;
  }[] = [
    { name: 'exact fit', volumes: [pv('a')], want: 'a' },
    {
      name: 'smallest that fits',
      volumes: [pv('big', { capacity: { storage: '100Gi' } }), pv('mid', { capacity: { storage: '20Gi' } })],
      want: 'mid',
    },
    { name: 'too small', volumes: [pv('small', { capacity: { storage: '5Gi' } })] },
    { name: 'other class', volumes: [pv('a', { storageClassName: 'silver' })] },
    { name: 'missing access mode', volumes: [pv('a', { accessModes: ['ReadOnlyMany'] })] },
    {
      name: 'more modes than asked is fine',
      volumes: [pv('a', { accessModes: ['ReadWriteOnce', 'ReadWriteMany'] })],
      want: 'a',
    },
    { name: 'not Available', volumes: [pv('a', {}, { phase: 'Released' })] },
    {
      name: 'bound elsewhere',
      volumes: [pv('a', { claimRef: { namespace: 'db', name: 'other', uid: 'x' } })],
    },
    { name: 'being deleted', volumes: [pv('a', {}, { deleting: true })] },
    { name: 'block vs filesystem', volumes: [pv('a', { volumeMode: 'Block' })] },
    {
      name: 'pre-bound wins over a better fit',
      volumes: [
        pv('fit'),
        pv(
          'mine',
          { capacity: { storage: '1Gi' }, claimRef: { namespace: 'db', name: 'data', uid: 'c1' } },
          { phase: 'Bound' },
        ),
      ],
      want: 'mine',
    },
    {
      name: 'user pre-binding without uid',
      volumes: [pv('mine', { claimRef: { namespace: 'db', name: 'data' } })],
      want: 'mine',
    },
    {
      name: 'claimRef with a stale uid',
      volumes: [pv('old', { claimRef: { namespace: 'db', name: 'data', uid: 'gone' } })],
    },
    {
      name: 'selector matches labels',
      claim: claim({ selector: { matchLabels: { tier: 'ssd' } } }),
      volumes: [pv('hdd', {}, { labels: { tier: 'hdd' } }), pv('ssd', {}, { labels: { tier: 'ssd' } })],
      want: 'ssd',
    },
    { name: 'delayed claim without node binds nothing new', volumes: [pv('a')], delay: true },
    {
      name: 'delayed claim: reachable volume',
      volumes: [pv('a', { nodeAffinity: zoneA })],
      delay: true,
      node: { name: 'n1', labels: { zone: 'a' } },
      want: 'a',
    },
    {
      name: 'delayed claim: unreachable volume',
      volumes: [pv('a', { nodeAffinity: zoneA })],
      delay: true,
      node: { name: 'n1', labels: { zone: 'b' } },
    },
  ];
  it.each(cases)('$name', (c) => {
    const got = findMatchingVolume(c.claim ?? claim(), c.volumes, { delayBinding: !!c.delay, node: c.node });
    expect(got?.metadata?.name).toBe(c.want);
  });
});

describe('access modes and claim refs', () => {
  it.each([
    [['ReadWriteOnce'], ['ReadWriteOnce'], true],
    [['ReadWriteOnce', 'ReadOnlyMany'], ['ReadOnlyMany'], true],
    [['ReadWriteOnce'], ['ReadWriteMany'], false],
    [['ReadWriteOnce'], ['ReadWriteOncePod'], false],
    [[], [], true],
  ])('volume %j satisfies claim %j: %s', (v, c, want) => expect(accessModesSatisfy(v, c)).toBe(want));

  it('matches claimRef by namespace, name and uid', () => {
    const ref = (uid?: string, namespace = 'db') => pv('a', { claimRef: { namespace, name: 'data', uid } });
    expect(isVolumeBoundToClaim(ref('c1'), claim())).toBe(true);
    expect(isVolumeBoundToClaim(ref(undefined), claim())).toBe(true);
    expect(isVolumeBoundToClaim(ref('c2'), claim())).toBe(false);
    expect(isVolumeBoundToClaim(ref('c1', 'web'), claim())).toBe(false);
    expect(isVolumeBoundToClaim(pv('a'), claim())).toBe(false);
  });
});
