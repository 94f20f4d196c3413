import { describe, expect, it } from 'vitest';
import { SseParser } from './infraStream';

describe('SseParser', () => {
  it.each([
    ['one event', ['event: a\ndata: {"x":1}\n\n'], [{ event: 'a', data: '{"x":1}' }]],
    ['comments and pings are skipped', [': connected\n\n: ping\n\n'], []],
    ['an event split across chunks', ['event: a\nda', 'ta: 1\n', '\n'], [{ event: 'a', data: '1' }]],
    [
      'two events in a chunk',
      ['data: 1\n\ndata: 2\n\n'],
      [
        { event: 'message', data: '1' },
        { event: 'message', data: '2' },
      ],
    ],
    ['multi-line data', ['data: a\ndata: b\n\n'], [{ event: 'message', data: 'a\nb' }]],
    ['an unfinished event waits', ['event: a\ndata: 1\n'], []],
  ])('%s', (_what, chunks, want) => {
    const p = new SseParser();
    expect(chunks.flatMap((c) => p.push(c))).toEqual(want);
  });
});
