import { describe, expect, it } from 'vitest';
import { summarize } from '../../fencing/announced';
import { incidentTitle, titled } from './title';

const NOW = 1_800_000_000_000;
const a = (node: string, inS: number, paused = false) => ({
  node,
  fence: node,
  policy: 'zones',
  fenceAt: NOW + inS * 1000,
  paused,
});

describe('the incident title', () => {
  it.each([
    { name: 'calm', items: [], down: 0, want: { level: 'calm' } },
    { name: 'nodes down', items: [], down: 3, want: { level: 'warn', prefix: '● 3 nodes down' } },
    { name: 'one node down', items: [], down: 1, want: { level: 'warn', prefix: '● 1 node down' } },
    {
      name: 'fences coming: the countdown wins',
      items: [a('a1-1', 8), a('a1-2', 9)],
      down: 2,
      want: { level: 'crit', prefix: '⚠ 2 fences in 8 s (next: a1-1)' },
    },
    {
      name: 'held only',
      items: [a('a1-1', 8, true)],
      down: 0,
      want: { level: 'warn', prefix: '● 1 fence held: policy zones is paused' },
    },
  ])('$name', ({ items, down, want }) => expect(incidentTitle(summarize(items), down, NOW)).toEqual(want));

  it.each([
    ['Nodes · Palisade', undefined, '● 1 node down', '● 1 node down · Nodes · Palisade'],
    [
      '● 1 node down · Nodes · Palisade',
      '● 1 node down',
      '● 2 nodes down',
      '● 2 nodes down · Nodes · Palisade',
    ],
    ['● 2 nodes down · Nodes · Palisade', '● 2 nodes down', undefined, 'Nodes · Palisade'],
    // the page navigated: a new title without the prefix
    ['Pods · Palisade', '● 2 nodes down', '● 2 nodes down', '● 2 nodes down · Pods · Palisade'],
  ])('titled(%j, last %j, prefix %j)', (current, last, prefix, want) =>
    expect(titled(current, last, prefix)).toBe(want),
  );
});
