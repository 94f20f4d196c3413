import { describe, expect, it } from 'vitest';
import { RoomFeed } from './feed.js';

type Item = { k: string; v: number };

function feed(items: Item[] = [], limits = {}) {
  return new RoomFeed<Item>('c', 'nodes', () => items, limits);
}

describe('RoomFeed', () => {
  it('coalesces changes between flushes: the latest view wins, upsert then delete is a delete', () => {
    const f = feed();
    const from = f.seq;
    f.change('a', { k: 'a', v: 1 });
    f.change('a', { k: 'a', v: 2 });
    f.change('b', { k: 'b', v: 1 });
    f.change('b', undefined);
    f.change('c', undefined);
    f.change('c', { k: 'c', v: 3 });
    expect(f.flush()).toEqual({
      cluster: 'c',
      kind: 'nodes',
      fromSeq: from,
      seq: from + 1,
      upserts: [
        { k: 'a', v: 2 },
        { k: 'c', v: 3 },
      ],
      deletes: ['b'],
    });
    expect(f.flush()).toBeUndefined();
    expect(f.seq).toBe(from + 1);
  });

  it('starts its seq at the clock, so a restarted server never reuses a number', () => {
    const before = Date.now();
    expect(feed().seq).toBeGreaterThanOrEqual(before);
  });

  it.each([
    ['the current seq', 0, []],
    ['one delta back', 1, [2]],
    ['two deltas back', 2, [1, 2]],
  ])('resumes from %s', (_what, back, wantValues) => {
    const f = feed();
    const start = f.seq;
    f.change('a', { k: 'a', v: 1 });
    f.flush();
    f.change('a', { k: 'a', v: 2 });
    f.flush();
    const deltas = f.since(start + 2 - back)!;
    expect(deltas.map((d) => d.upserts[0].v)).toEqual(wantValues);
  });

  it.each([
    ['a seq it never gave', (s: number) => s + 10],
    ['a seq older than its history', (s: number) => s - 1],
  ])('cannot resume from %s', (_what, seqOf) => {
    const f = feed();
    const start = f.seq;
    f.change('a', { k: 'a', v: 1 });
    f.flush();
    expect(f.since(seqOf(start))).toBeUndefined();
  });

  it('forgets old deltas beyond its limits', () => {
    const f = feed([], { maxDeltas: 2 });
    const start = f.seq;
    for (let v = 0; v < 3; v++) {
      f.change('a', { k: 'a', v });
      f.flush();
    }
    expect(f.since(start)).toBeUndefined();
    expect(f.since(start + 1)).toHaveLength(2);
  });

  it('snapshots the current items at the current seq', () => {
    const items = [{ k: 'a', v: 1 }];
    const f = feed(items);
    expect(f.snapshot()).toEqual({ cluster: 'c', kind: 'nodes', epoch: f.epoch, seq: f.seq, items });
  });

  it("resumes only from its own numbering: another replica's seq gets a snapshot", () => {
    const a = feed([]);
    const b = feed([]);
    const start = a.seq;
    a.change('a', { k: 'a', v: 1 });
    a.flush();
    // the same number, told by a client that counted it on another feed
    expect(a.since(start, b.epoch)).toBeUndefined();
    expect(a.since(start, a.epoch)).toHaveLength(1);
    // a client that names no epoch resumes as before
    expect(a.since(start)).toHaveLength(1);
  });
});
