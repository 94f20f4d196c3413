import { describe, expect, it } from 'vitest';
import type { Taint, Toleration } from '../../../lib/kube/tolerations.js';
import { noExecutePlan } from './taintManager.js';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const gpu: Taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' };

describe('noExecutePlan', () => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  const added = (s: number) => ({ ...unreachable, timeAdded: new Date(now - s * 1000).toISOString() });
  const tolerate = (seconds?: number): Toleration => ({
    key: unreachable.key,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: seconds,
  });
  const notReady: Taint = {
    key: 'node.kubernetes.io/not-ready',
    effect: 'NoExecute',
    timeAdded: new Date(now),
  };
  const cases: [string, Taint[], Toleration[], ReturnType<typeof noExecutePlan>][] = [
    ['no taints', [], [], { action: 'keep' }],
    ['only NoSchedule taints', [gpu], [], { action: 'keep' }],
    ['untolerated NoExecute', [added(0)], [], { action: 'evict', taint: added(0) }],
    ['tolerated forever', [added(1000)], [tolerate()], { action: 'keep' }],
    [
      'tolerated for 300 s, tainted 100 s ago',
      [added(100)],
      [tolerate(300)],
      { action: 'wait', atMs: now + 200_000, taint: added(100) },
    ],
    [
      'tolerated for 300 s, tainted 300 s ago',
      [added(300)],
      [tolerate(300)],
      { action: 'evict', taint: added(300) },
    ],
    ['tolerationSeconds 0', [added(0)], [tolerate(0)], { action: 'evict', taint: added(0) }],
    ['negative tolerationSeconds', [added(0)], [tolerate(-5)], { action: 'evict', taint: added(0) }],
    [
      'one of two taints untolerated',
      [added(0), notReady],
      [tolerate(300)],
      { action: 'evict', taint: notReady },
    ],
    [
      'the earliest deadline of two tolerated taints',
      [added(100), notReady],
      [tolerate(300), { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
      { action: 'wait', atMs: now + 60_000, taint: notReady },
    ],
  ];
  it.each(cases)('%s', (_, taints, tolerations, want) => {
    expect(noExecutePlan(taints, tolerations, now)).toEqual(want);
  });

  it('asks for a time for taints without timeAdded', () => {
    const plan = noExecutePlan([unreachable], [tolerate(2)], now, () => now - 500);
    expect(plan).toEqual({ action: 'wait', atMs: now + 1500, taint: unreachable });
  });
});
