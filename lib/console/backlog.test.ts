import { describe, expect, it } from 'vitest';
import { Backlog } from './backlog.js';

const LIMIT = 64;

describe('Backlog: when a socket counts as behind', () => {
  it('counts the queue against the limit when no snapshot is in it', () => {
    const b = new Backlog();
    expect(b.slow('s', 64, LIMIT)).toBe(false);
    expect(b.slow('s', 65, LIMIT)).toBe(true);
  });

  it('does not count a large snapshot still on its way, only what is queued beyond it', () => {
    const b = new Backlog();
    // 150 000 pods: about 50 000 KiB queued the moment the snapshot is sent
    b.snapshotSent('s', 50_000);
    expect(b.slow('s', 50_000, LIMIT)).toBe(false);
    expect(b.slow('s', 50_060, LIMIT)).toBe(false);
    // deltas pile up beyond the snapshot: behind
    expect(b.slow('s', 50_065, LIMIT)).toBe(true);
  });

  it('lowers the mark as the queue drains: what then grows is deltas', () => {
    const b = new Backlog();
    b.snapshotSent('s', 50_000);
    // drained to 10 000: at most that much of the queue is still the snapshot
    expect(b.slow('s', 10_000, LIMIT)).toBe(false);
    expect(b.slow('s', 10_050, LIMIT)).toBe(false);
    expect(b.slow('s', 10_070, LIMIT)).toBe(true);
    // all drained: the plain limit again
    expect(b.slow('s', 0, LIMIT)).toBe(false);
    expect(b.slow('s', 65, LIMIT)).toBe(true);
  });

  it('keeps sockets apart and forgets one that left', () => {
    const b = new Backlog();
    b.snapshotSent('a', 50_000);
    expect(b.slow('b', 1000, LIMIT)).toBe(true);
    b.forget('a');
    expect(b.slow('a', 1000, LIMIT)).toBe(true);
  });
});
