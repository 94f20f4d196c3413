import { describe, expect, it } from 'vitest';
import type { Announced } from '../../fencing/announced';
import { fenceNotices } from './notify';

const NOW = 1_800_000_000_000;
const clock = (ms: number) => `T+${(ms - NOW) / 1000}`;
const a = (node: string, inS: number | undefined, paused = false): Announced => ({
  node,
  fence: node,
  policy: 'zones',
  fenceAt: inS === undefined ? undefined : NOW + inS * 1000,
  paused,
});
const held = (node: string) => ({ node, why: '3 of 4 nodes unhealthy, at most 1 (maxUnhealthy 1) allowed' });
const read = (seen: Set<string> | undefined, announced: Announced[], h = [] as ReturnType<typeof held>[]) =>
  fenceNotices(seen, 'east', announced, h, NOW, clock);

describe('fence notifications', () => {
  it('the first reading only sets the baseline: opening the console replays nothing', () => {
    const r = read(undefined, [a('a1-1', 8)], [held('b1-1')]);
    expect(r.notices).toEqual([]);
    expect(read(r.seen, [a('a1-1', 8)], [held('b1-1')]).notices).toEqual([]);
  });

  it.each<[string, Announced[], ReturnType<typeof held>[], { kind: string; title: string; body: RegExp }[]]>([
    [
      'a fence announced: when, by which policy, and what to do',
      [a('a1-2', 9)],
      [],
      [
        {
          kind: 'announced',
          title: 'Fence of a1-2 in 9 s',
          body: /^Policy zones fences a1-2 \(cluster east\) at T\+9 unless someone cancels it\. Open Palisade to cancel or pause\.$/,
        },
      ],
    ],
    [
      'due now, and a window not known',
      [a('a1-2', 0), a('a1-3', undefined)],
      [],
      [
        { kind: 'announced', title: 'Fence of a1-2 due now', body: /at T\+0 unless/ },
        { kind: 'announced', title: 'Fence of a1-3 announced', body: /when its warning window ends unless/ },
      ],
    ],
    [
      'a paused policy holds it',
      [a('a1-2', 9, true)],
      [],
      [
        {
          kind: 'paused',
          title: 'Fence of a1-2 held: policy paused',
          body: /^Policy zones is paused \(cluster east\): a1-2 stays unfenced until someone resumes the policy or fences it by hand\.$/,
        },
      ],
    ],
    [
      'the budget holds it, with why and how to override',
      [],
      [held('b1-1')],
      [
        {
          kind: 'budget',
          title: 'Fence of b1-1 held by the fencing budget',
          body: /^3 of 4 nodes unhealthy, .* \(cluster east\)\. Fence now, with the node's name typed, overrides the budget\.$/,
        },
      ],
    ],
  ])('%s', (_, announced, h, want) => {
    const { notices } = read(new Set(), announced, h);
    expect(notices).toEqual(
      want.map((w) => expect.objectContaining({ ...w, body: expect.stringMatching(w.body) })),
    );
  });

  it('each once: the same fence counting down again says nothing; held after announced says it; one tag per node', () => {
    const first = read(new Set(), [a('a1-2', 9)]);
    // its time moved: the upcoming fence became a NodeFence with its own fenceAt
    const again = read(first.seen, [a('a1-2', 10)]);
    expect(again.notices).toEqual([]);
    const paused = read(again.seen, [a('a1-2', 9, true)]);
    expect(paused.notices.map((n) => n.kind)).toEqual(['paused']);
    expect(paused.notices[0]!.tag).toBe(first.notices[0]!.tag);
  });

  it('a fence gone and announced again (a new incident) notifies again', () => {
    const first = read(new Set(), [a('a1-2', 9)]);
    const gone = read(first.seen, []);
    expect(gone.notices).toEqual([]);
    expect(read(gone.seen, [a('a1-2', 30)]).notices.map((n) => n.title)).toEqual(['Fence of a1-2 in 30 s']);
  });
});
