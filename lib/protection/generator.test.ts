import { describe, expect, it } from 'vitest';
import {
  cellsToRemove,
  desiredProtector,
  minAvailableOf,
  protectorName,
  type WorkloadFacts,
} from './generator.js';

const w = (
  kind: WorkloadFacts['kind'],
  replicas: number,
  strategy?: WorkloadFacts['strategy'],
): WorkloadFacts => ({
  kind,
  namespace: 'shop',
  name: 'web',
  uid: 'u',
  replicas,
  minReadySeconds: 5,
  selector: { matchLabels: { app: 'web' } },
  strategy,
});

describe('minAvailableOf', () => {
  it.each<[string, WorkloadFacts, number]>([
    ['Deployment default 25% rounds down', w('Deployment', 10), 8],
    ['Deployment 4 replicas: 1 unavailable', w('Deployment', 4), 3],
    ['Deployment 3 replicas: 25% is 0, surge 1: floor 3', w('Deployment', 3), 3],
    [
      'Deployment maxUnavailable 0 and maxSurge 0: one may go',
      w('Deployment', 5, { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } }),
      4,
    ],
    ['Deployment absolute maxUnavailable', w('Deployment', 10, { rollingUpdate: { maxUnavailable: 3 } }), 7],
    ['Deployment 50%', w('Deployment', 7, { rollingUpdate: { maxUnavailable: '50%' } }), 4],
    ['Deployment Recreate: no floor', w('Deployment', 6, { type: 'Recreate' }), 0],
    ['Deployment scaled to 0', w('Deployment', 0), 0],
    ['StatefulSet default: one at a time', w('StatefulSet', 3), 2],
    ['StatefulSet percent rounds up', w('StatefulSet', 10, { rollingUpdate: { maxUnavailable: '25%' } }), 7],
    [
      'StatefulSet maxUnavailable at least 1',
      w('StatefulSet', 5, { rollingUpdate: { maxUnavailable: '0%' } }),
      4,
    ],
    ['StatefulSet single replica', w('StatefulSet', 1), 0],
  ])('%s', (_n, workload, expected) => {
    expect(minAvailableOf(workload)).toBe(expected);
  });
});

describe('desiredProtector', () => {
  it('is named after the workload, carries the finalizer, copies minReadySeconds and the selector', () => {
    const p = desiredProtector(w('StatefulSet', 3));
    expect(p.metadata.name).toBe('statefulset-web');
    expect(p.metadata.finalizers).toEqual(['podseidon.kubewharf.io/generator']);
    expect(p.spec).toEqual({
      minAvailable: 2,
      minReadySeconds: 5,
      selector: { matchLabels: { app: 'web' } },
    });
    expect(protectorName('Deployment', 'api')).toBe('deployment-api');
  });
});

describe('cellsToRemove', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['a', ['a']],
    [' a, b ,,c', ['a', 'b', 'c']],
  ])('%j', (v, out) => {
    expect(cellsToRemove(v)).toEqual(out);
  });
});
