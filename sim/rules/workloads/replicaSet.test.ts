import { describe, expect, it } from 'vitest';
import { podsToDelete, replicaSetCounts } from './replicaSet.js';
import { fixturePod as pod } from '../../../lib/workloads/testPods.js';

describe('podsToDelete', () => {
  it.each([
    ['unscheduled before scheduled', [pod({ name: 'a', node: 'n', ready: true }), pod({ name: 'b' })], 'b'],
    [
      'pending before running',
      [pod({ name: 'a', node: 'n', ready: true }), pod({ name: 'b', node: 'n', phase: 'Pending' })],
      'b',
    ],
    [
      'not ready before ready',
      [pod({ name: 'a', node: 'n', ready: true }), pod({ name: 'b', node: 'n', ready: false })],
      'b',
    ],
    [
      'ready more recently before ready longer',
      [
        pod({ name: 'a', node: 'n', ready: true, readySince: '2024-01-01T00:00:10Z' }),
        pod({ name: 'b', node: 'n', ready: true, readySince: '2024-01-01T00:05:00Z' }),
      ],
      'b',
    ],
    [
      'more restarts first',
      [pod({ name: 'a', node: 'n', ready: true }), pod({ name: 'b', node: 'n', ready: true, restarts: 3 })],
      'b',
    ],
    [
      'newest first',
      [
        pod({ name: 'a', node: 'n', ready: true, created: '2024-01-01T00:00:00Z' }),
        pod({ name: 'b', node: 'n', ready: true, created: '2024-01-01T00:00:05Z' }),
      ],
      'b',
    ],
  ])('%s', (_n, pods, first) => {
    expect(podsToDelete(pods, 1).map((p) => p.metadata!.name)).toEqual([first]);
  });

  it('takes no more than asked, and none for a non-positive count', () => {
    const pods = [pod({ name: 'a' }), pod({ name: 'b' }), pod({ name: 'c' })];
    expect(podsToDelete(pods, 2)).toHaveLength(2);
    expect(podsToDelete(pods, -1)).toEqual([]);
  });
});

describe('replicaSetCounts', () => {
  it('counts only active pods; terminating ones do not count (availability first)', () => {
    const now = Date.parse('2024-01-01T00:01:00Z');
    const counts = replicaSetCounts(
      [
        pod({ name: 'ready-old', node: 'n', ready: true, readySince: '2024-01-01T00:00:00Z' }),
        pod({ name: 'ready-new', node: 'n', ready: true, readySince: '2024-01-01T00:00:55Z' }),
        pod({ name: 'unready', node: 'n', ready: false, labels: { app: 'other' } }),
        pod({ name: 'leaving', node: 'n', ready: true, deleting: true }),
        pod({ name: 'done', node: 'n', phase: 'Succeeded' }),
      ],
      { app: 'web' },
      30,
      now,
    );
    expect(counts).toEqual({ replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1 });
  });
});
