import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { workloadObjects } from './build.js';
import { parseScenario } from './load.js';

const scenario = (workload: string) =>
  parseScenario(
    `name: t\nnodes:\n  zones: [{ name: z, racks: [{ name: r, count: 1 }] }]\nworkloads:\n${workload}`,
    'test.yaml',
  );

describe('a workload that opts in to instance IDs', () => {
  it('is labelled, and its container reads the endpoint from the ConfigMap Palisade writes', () => {
    const s = scenario(
      '  - { kind: Deployment, name: metrics, namespace: mon, replicas: 3, instanceIds: true }',
    );
    const [d] = workloadObjects(s.workloads[0]) as [k8s.V1Deployment];
    expect(d.metadata?.labels).toEqual({ app: 'metrics', 'palisade.dev/instance-ids-enabled': 'true' });
    expect(d.metadata?.annotations).toBeUndefined();
    expect(d.spec?.template.spec?.containers[0].env).toEqual([
      {
        name: 'PALISADE_INSTANCE_IDS_URL',
        valueFrom: { configMapKeyRef: { name: 'palisade-instance-ids', key: 'url' } },
      },
    ]);
  });

  it('is off by default: no label, no environment', () => {
    const s = scenario('  - { kind: StatefulSet, name: db, replicas: 1 }');
    const [sts] = workloadObjects(s.workloads[0]) as [k8s.V1StatefulSet];
    expect(sts.metadata?.labels).toEqual({ app: 'db' });
    expect(sts.spec?.template.spec?.containers[0].env).toBeUndefined();
  });

  it('a value that is not a boolean names the field', () =>
    expect(() => scenario('  - { kind: Deployment, name: m, replicas: 1, instanceIds: "yes" }')).toThrow(
      /^test\.yaml: workloads\.0\.instanceIds: /,
    ));
});
