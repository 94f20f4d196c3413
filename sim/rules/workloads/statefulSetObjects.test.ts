import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { statefulSetClaims, statefulSetPod } from './statefulSetObjects.js';

const set: k8s.V1StatefulSet = {
  metadata: { name: 'web', namespace: 'ns', uid: 'u1' },
  spec: {
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { a: 'b' } },
      spec: {
        containers: [{ name: 'c', image: 'nginx' }],
        volumes: [
          { name: 'www', emptyDir: {} },
          { name: 'cfg', configMap: { name: 'cfg' } },
        ],
      },
    },
    volumeClaimTemplates: [
      {
        metadata: { name: 'www' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ],
  },
};

describe('statefulSetPod', () => {
  const pod = statefulSetPod(set, 2, 'web-abc', set.spec!.template);
  it('has the stable identity: name, hostname, subdomain and identity labels', () => {
    expect(pod.metadata?.name).toBe('web-2');
    expect(pod.spec?.hostname).toBe('web-2');
    expect(pod.spec?.subdomain).toBe('web');
    expect(pod.metadata?.labels).toEqual({
      app: 'web',
      'statefulset.kubernetes.io/pod-name': 'web-2',
      'apps.kubernetes.io/pod-index': '2',
      'controller-revision-hash': 'web-abc',
    });
    expect(pod.metadata?.annotations).toEqual({ a: 'b' });
  });

  it('is controlled by the set and blocks its deletion', () => {
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        name: 'web',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('mounts the ordinal’s own claim in place of a template volume of the same name', () => {
    expect(pod.spec?.volumes).toEqual([
      { name: 'cfg', configMap: { name: 'cfg' } },
      { name: 'www', persistentVolumeClaim: { claimName: 'www-web-2' } },
    ]);
  });
});

describe('statefulSetClaims', () => {
  it('names claims <template>-<set>-<ordinal> with the selector labels', () => {
    const [claim] = statefulSetClaims(set, 0);
    expect(claim.metadata).toMatchObject({ name: 'www-web-0', namespace: 'ns', labels: { app: 'web' } });
    expect(claim.metadata?.ownerReferences).toBeUndefined();
    expect(claim.spec?.accessModes).toEqual(['ReadWriteOnce']);
  });
});
