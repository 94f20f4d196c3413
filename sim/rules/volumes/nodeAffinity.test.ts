import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { topologyTermMatches, volumeReachableFrom } from './nodeAffinity.js';

describe('volumeReachableFrom', () => {
  const pv = (terms?: k8s.V1NodeSelectorTerm[]): k8s.V1PersistentVolume => ({
    spec: terms ? { nodeAffinity: { required: { nodeSelectorTerms: terms } } } : {},
  });
  const zone = (v: string[]) => ({ matchExpressions: [{ key: 'zone', operator: 'In', values: v }] });
  const n = (labels: Record<string, string>, name = 'n1') => ({ name, labels });
  it.each([
    ['no affinity', pv(), n({}), true],
    ['term matches', pv([zone(['a'])]), n({ zone: 'a' }), true],
    ['terms are ORed', pv([zone(['b']), zone(['a'])]), n({ zone: 'a' }), true],
    ['no term matches', pv([zone(['b'])]), n({ zone: 'a' }), false],
    ['an empty term matches nothing', pv([{}]), n({ zone: 'a' }), false],
    [
      'matchFields on the name',
      pv([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]),
      n({}),
      true,
    ],
    [
      'matchFields other name',
      pv([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }]),
      n({}),
      false,
    ],
  ])('%s', (_name, v, node, want) => expect(volumeReachableFrom(v, node)).toBe(want));
});

describe('topologyTermMatches', () => {
  const term = {
    matchLabelExpressions: [
      { key: 'zone', values: ['a', 'b'] },
      { key: 'rack', values: ['r1'] },
    ],
  };
  it.each([
    [{ zone: 'a', rack: 'r1' }, true],
    [{ zone: 'b', rack: 'r1' }, true],
    [{ zone: 'a', rack: 'r2' }, false],
    [{ zone: 'a' }, false],
  ])('%j', (labels, want) => expect(topologyTermMatches(term, labels)).toBe(want));
  it('an empty term matches nothing', () => expect(topologyTermMatches({}, { zone: 'a' })).toBe(false));
});
