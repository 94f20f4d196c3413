import { describe, expect, it } from 'vitest';
import { nodeSelectorTermMatches, requirementMatches } from './nodeSelector.js';

describe('requirementMatches', () => {
  const labels = { zone: 'a', cpus: '8' };
  it.each([
    ['In', ['a', 'b'], true],
    ['In', ['b'], false],
    ['NotIn', ['b'], true],
    ['NotIn', ['a'], false],
    ['Exists', [], true],
    ['DoesNotExist', [], false],
    ['Gt', ['4'], true],
    ['Lt', ['4'], false],
  ])('zone/cpus %s %j', (operator, values, want) => {
    const key = operator === 'Gt' || operator === 'Lt' ? 'cpus' : 'zone';
    expect(requirementMatches({ key, operator, values }, labels)).toBe(want);
  });
  it('treats a missing label like Kubernetes', () => {
    expect(requirementMatches({ key: 'rack', operator: 'NotIn', values: ['r1'] }, labels)).toBe(true);
    expect(requirementMatches({ key: 'rack', operator: 'DoesNotExist' }, labels)).toBe(true);
    expect(requirementMatches({ key: 'rack', operator: 'Gt', values: ['1'] }, labels)).toBe(false);
  });
});

describe('nodeSelectorTermMatches', () => {
  const node = { name: 'a1-1', labels: { zone: 'a' } };
  it.each([
    ['an empty term matches no node', {}, false],
    [
      'every expression must hold',
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      true,
    ],
    [
      'one failing expression fails the term',
      {
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['a'] },
          { key: 'rack', operator: 'Exists' },
        ],
      },
      false,
    ],
    [
      'matchFields on the name',
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a1-1'] }] },
      true,
    ],
    ['matchFields on another field', { matchFields: [{ key: 'spec.x', operator: 'Exists' }] }, false],
  ])('%s', (_, term, want) => {
    expect(nodeSelectorTermMatches(term, node)).toBe(want);
  });
});
