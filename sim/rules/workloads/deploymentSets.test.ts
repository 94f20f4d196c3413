import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { newReplicaSet, revisionOf } from './deploymentSets.js';

const d: k8s.V1Deployment = {
  metadata: { name: 'web', namespace: 'ns', uid: 'd1' },
  spec: {
    replicas: 4,
    minReadySeconds: 5,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
    template: {
      metadata: { labels: { app: 'web', tier: 'fe' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    },
  },
};

describe('newReplicaSet', () => {
  const rs = newReplicaSet(d, 'abc123', 1, '3', 1);
  it('is named <deployment>-<hash> and carries the hash on selector and template', () => {
    expect(rs.metadata?.name).toBe('web-abc123');
    expect(rs.spec?.selector).toEqual({
      matchLabels: { app: 'web', 'pod-template-hash': 'abc123' },
      matchExpressions: [{ key: 'tier', operator: 'Exists' }],
    });
    expect(rs.spec?.template?.metadata?.labels).toEqual({
      app: 'web',
      tier: 'fe',
      'pod-template-hash': 'abc123',
    });
  });

  it('records revision, desired and max replicas, and copies minReadySeconds', () => {
    expect(rs.metadata?.annotations).toEqual({
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/desired-replicas': '4',
      'deployment.kubernetes.io/max-replicas': '5',
    });
    expect(rs.spec?.minReadySeconds).toBe(5);
    expect(rs.spec?.replicas).toBe(1);
    expect(rs.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      uid: 'd1',
      controller: true,
    });
  });

  it.each([
    ['7', 7],
    [undefined, 0],
    ['x', 0],
    ['-1', 0],
  ])('revisionOf(%j) = %d', (v, want) => {
    expect(
      revisionOf({ metadata: { annotations: v ? { 'deployment.kubernetes.io/revision': v } : {} } }),
    ).toBe(want);
  });
});
