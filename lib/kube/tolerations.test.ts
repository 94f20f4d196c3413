import { describe, expect, it } from 'vitest';
import { formatTaint, type Taint, type Toleration, toleratesTaint, untoleratedTaint } from './tolerations.js';

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
