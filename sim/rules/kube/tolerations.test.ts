import { describe, expect, it } from 'vitest';
import {
  formatTaint,
  noExecutePlan,
  type Taint,
  type Toleration,
  toleratesTaint,
  untoleratedTaint,
} from './tolerations.js';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const gpu: Taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' };

describe('toleratesTaint', () => {
  const cases: [string, Toleration, Taint, boolean][] = [
    ['exact key, value and effect', { key: 'gpu', value: 'true', effect: 'NoSchedule' }, gpu, true],
    ['Equal is the default operator', { key: 'gpu', operator: 'Equal', value: 'true' }, gpu, true],
    ['different value', { key: 'gpu', value: 'false' }, gpu, false],
    ['Exists ignores the value', { key: 'gpu', operator: 'Exists' }, gpu, true],
    [
      'empty effect matches every effect',
      { key: 'gpu', operator: 'Exists' },
      { ...gpu, effect: 'NoExecute' },
      true,
    ],
    ['different effect', { key: 'gpu', operator: 'Exists', effect: 'NoExecute' }, gpu, false],
    ['different key', { key: 'ssd', operator: 'Exists' }, gpu, false],
    ['empty key with Exists tolerates everything', { operator: 'Exists' }, unreachable, true],
    [
      'empty value equals a taint without value',
      { key: unreachable.key, operator: 'Equal' },
      unreachable,
      true,
    ],
    ['unknown operator', { key: 'gpu', operator: 'Gt', value: 'true' }, gpu, false],
  ];
  it.each(cases)('%s', (_, toleration, taint, want) => {
    expect(toleratesTaint(toleration, taint)).toBe(want);
  });
});

describe('untoleratedTaint', () => {
  const prefer: Taint = { key: 'spot', effect: 'PreferNoSchedule' };
  it('returns the first NoSchedule/NoExecute taint nobody tolerates, ignoring PreferNoSchedule', () => {
    expect(untoleratedTaint([prefer, gpu, unreachable], [])).toEqual(gpu);
    expect(untoleratedTaint([prefer, gpu, unreachable], [{ key: 'gpu', operator: 'Exists' }])).toEqual(
      unreachable,
    );
    expect(untoleratedTaint([prefer], [])).toBeUndefined();
    expect(untoleratedTaint(undefined, undefined)).toBeUndefined();
  });

  it('can be limited to one effect', () => {
    expect(untoleratedTaint([gpu, unreachable], [], ['NoExecute'])).toEqual(unreachable);
  });
});

describe('formatTaint', () => {
  it('renders {key: value} as kube-scheduler does', () => {
    expect(formatTaint(unreachable)).toBe('{node.kubernetes.io/unreachable: }');
    expect(formatTaint(gpu)).toBe('{gpu: true}');
  });
});

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
