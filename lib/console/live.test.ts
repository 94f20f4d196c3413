import { describe, expect, it } from 'vitest';
import { afterSignal, TOPICS, topicRoom } from './live';

describe('afterSignal', () => {
  it.each([
    ['no ack yet: refetch all', undefined, { fromSeq: 5, seq: 6, keys: ['a/b'] }, { seq: 6, refetch: 'all' }],
    ['next in line, no keys: refetch all', 5, { fromSeq: 5, seq: 6 }, { seq: 6, refetch: 'all' }],
    [
      'next in line with keys: just those',
      5,
      { fromSeq: 5, seq: 6, keys: ['a/b'] },
      { seq: 6, refetch: ['a/b'] },
    ],
    ['next in line, none of mine: nothing', 5, { fromSeq: 5, seq: 6, keys: [] }, { seq: 6, refetch: 'none' }],
    ['a signal missed: refetch all', 5, { fromSeq: 6, seq: 7, keys: ['a/b'] }, { seq: 7, refetch: 'all' }],
    [
      'another replica’s numbers: refetch all',
      5,
      { fromSeq: 900, seq: 901, keys: [] },
      { seq: 901, refetch: 'all' },
    ],
  ] as const)('%s', (_name, last, signal, expected) => {
    expect(afterSignal(last, { ...signal, keys: 'keys' in signal ? [...signal.keys] : undefined })).toEqual(
      expected,
    );
  });
});

describe('topic rooms', () => {
  it('are one per topic and cluster, and never a cluster’s own room name', () => {
    const rooms = TOPICS.flatMap((t) => ['a', 'b'].map((c) => topicRoom(t, c)));
    expect(new Set(rooms).size).toBe(TOPICS.length * 2);
    for (const r of rooms) expect(r.startsWith('live/')).toBe(true);
  });
});
