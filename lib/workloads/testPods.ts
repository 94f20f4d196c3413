// Pod fixtures for the workload unit tests.
import type * as k8s from '@kubernetes/client-node';

export interface PodFixture {
  name: string;
  node?: string;
  phase?: string;
  ready?: boolean;
  readySince?: string;
  created?: string;
  deleting?: boolean;
  restarts?: number;
  ip?: string;
  labels?: Record<string, string>;
}

export function fixturePod(f: PodFixture): k8s.V1Pod {
  return {
    metadata: {
      name: f.name,
      namespace: 'ns',
      uid: `uid-${f.name}`,
      labels: f.labels ?? { app: 'web' },
      creationTimestamp: (f.created ?? '2024-01-01T00:00:00Z') as unknown as Date,
      ...(f.deleting ? { deletionTimestamp: '2024-01-01T01:00:00Z' as unknown as Date } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...(f.node ? { nodeName: f.node } : {}) },
    status: {
      phase: f.phase ?? (f.node ? 'Running' : 'Pending'),
      ...(f.ip ? { podIP: f.ip } : {}),
      conditions:
        f.ready === undefined
          ? []
          : [
              {
                type: 'Ready',
                status: f.ready ? 'True' : 'False',
                lastTransitionTime: (f.readySince ?? '2024-01-01T00:00:10Z') as unknown as Date,
              },
            ],
      containerStatuses: [
        { name: 'c', image: 'nginx', imageID: '', ready: !!f.ready, restartCount: f.restarts ?? 0 },
      ],
    },
  };
}
