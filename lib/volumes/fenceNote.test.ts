import { describe, expect, it } from 'vitest';
import { fenceNoteText, type NodeFenceNote } from './fenceNote';

describe('fenceNoteText', () => {
  it.each<[string, NodeFenceNote, string]>([
    [
      'a fence under way',
      {
        node: 'a2-1',
        phase: 'Fencing',
        outlook: { code: 'fence-in-progress', node: 'a2-1', fence: 'a2-1', policy: 'demo', phase: 'Fencing' },
      },
      'fence in progress on a2-1 (NodeFence a2-1 is Fencing): the volume is released after it',
    ],
    [
      'a fence coming',
      { node: 'a2-1', outlook: { code: 'fence-pending', node: 'a2-1', policy: 'demo', fenceAt: 8_000 } },
      'FencePolicy demo will fence a2-1 in 8 s: the volume is released after the fence',
    ],
    [
      'a paused policy',
      { node: 'a2-1', outlook: { code: 'fence-paused', node: 'a2-1', policy: 'demo' } },
      "FencePolicy demo is paused: no fence releases a2-1's volume",
    ],
    [
      'held by the budget',
      { node: 'a2-1', outlook: { code: 'fence-held', node: 'a2-1', policy: 'demo', why: 'budget' } },
      'the fencing budget holds the fence of a2-1 (budget): nothing releases the volume yet',
    ],
    ['already fenced', { node: 'a2-1', phase: 'Released' }, 'NodeFence a2-1 is Released'],
  ])('%s', (_what, n, want) => expect(fenceNoteText(n, 0)).toBe(want));
});
