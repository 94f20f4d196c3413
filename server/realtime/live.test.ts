// The live channel's feeds, on a socket.io stand-in that records what goes to which room and
// socket: who may watch, how marks become signals, and how the numbering runs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveAck, LiveChanged } from '../../lib/console/live.js';
import { LiveChannel } from './live.js';
import type { Scope } from './scope.js';
import type { LiveServer, LiveSocket } from './sockets.js';

interface Sent {
  to: string;
  event: string;
  payload: LiveChanged;
}

function fakeIo() {
  const sent: Sent[] = [];
  let onConnection: ((s: LiveSocket) => void) | undefined;
  const io = {
    to: (to: string) => ({
      emit: (event: string, payload: LiveChanged) => sent.push({ to, event, payload }),
    }),
    on: (_e: 'connection', f: (s: LiveSocket) => void) => {
      onConnection = f;
    },
  };
  /** a connected socket: its handlers, its rooms, what was sent to it alone */
  const connect = (id: string) => {
    const handlers = new Map<string, (...a: unknown[]) => void>();
    const rooms = new Set<string>();
    const s = {
      id,
      data: {},
      rooms,
      on: (e: string, f: (...a: unknown[]) => void) => handlers.set(e, f),
      emit: (event: string, payload: LiveChanged) => sent.push({ to: id, event, payload }),
      join: async (r: string) => void rooms.add(r),
      leave: async (r: string) => void rooms.delete(r),
    };
    onConnection!(s as unknown as LiveSocket);
    const watch = (req: unknown) =>
      new Promise<LiveAck>((resolve) => handlers.get('live:watch')!(req, resolve));
    return { socket: s, rooms, watch, unwatch: (req: unknown) => handlers.get('live:unwatch')!(req) };
  };
  return { io: io as unknown as LiveServer, sent, connect };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('a live feed', () => {
  it('coalesces marks into one signal per cluster, numbered on from the watch', async () => {
    const { io, sent, connect } = fakeIo();
    const channel = new LiveChannel(io);
    const feed = channel.feed({ topic: 'fencing', clusters: ['a', 'b'], coalesceMs: 100 });
    const c = connect('s1');
    const ack = await c.watch({ topic: 'fencing', cluster: 'a' });
    expect(ack).toEqual({ ok: true, seq: 1_000_000 });
    expect([...c.rooms]).toEqual(['live/fencing/a']);
    feed.mark('a');
    feed.mark('a');
    feed.mark('b');
    feed.mark('nope'); // a cluster it does not have: nothing
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(sent.map((s) => [s.to, s.payload])).toEqual([
      ['live/fencing/a', { topic: 'fencing', cluster: 'a', fromSeq: 1_000_000, seq: 1_000_001 }],
      // nobody watched b: its numbers start at the clock when its first signal goes out
      ['live/fencing/b', { topic: 'fencing', cluster: 'b', fromSeq: 1_000_100, seq: 1_000_101 }],
    ]);
    feed.mark('a');
    vi.advanceTimersByTime(100);
    expect(sent.at(-1)?.payload).toMatchObject({ cluster: 'a', fromSeq: 1_000_001, seq: 1_000_002 });
    // a later watcher starts from where the numbering stands
    expect(await connect('s2').watch({ topic: 'fencing', cluster: 'a' })).toEqual({
      ok: true,
      seq: 1_000_002,
    });
  });

  it('names the keys that changed, and none once a mark named none', () => {
    const { io, sent } = fakeIo();
    const feed = new LiveChannel(io).feed({ topic: 'protection', clusters: ['a'], coalesceMs: 10 });
    feed.mark('a', 'ns/p1');
    feed.mark('a', 'ns/p2');
    feed.mark('a', 'ns/p1');
    vi.advanceTimersByTime(10);
    expect(sent[0].payload.keys).toEqual(['ns/p1', 'ns/p2']);
    feed.mark('a', 'ns/p1');
    feed.mark('a');
    vi.advanceTimersByTime(10);
    expect(sent[1].payload).not.toHaveProperty('keys');
  });

  it('refuses what it cannot serve, naming the field', async () => {
    const { io, connect } = fakeIo();
    new LiveChannel(io).feed({ topic: 'volumes', clusters: ['a'] });
    const c = connect('s1');
    expect(await c.watch({ topic: 'volumes', cluster: 'nope' })).toEqual({
      ok: false,
      error: 'cluster: unknown cluster "nope"',
    });
    expect(await c.watch({ topic: 'audit', cluster: 'a' })).toEqual({
      ok: false,
      error: 'topic: this server has no audit feed',
    });
    const bad = await c.watch({ topic: 'secrets', cluster: '' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^topic: .*; cluster: cluster is required$/);
    expect(await c.watch('volumes')).toMatchObject({ ok: false });
    expect(c.rooms.size).toBe(0);
  });

  it('sends a person limited to some namespaces only their keys, empty too, so the numbers run on', async () => {
    const { io, sent, connect } = fakeIo();
    const scopes: Record<string, Scope> = {
      all: { kind: 'all' },
      ns: { kind: 'namespaces', namespaces: new Set(['mine']) },
      none: { kind: 'denied', message: 'podprotectors is forbidden' },
    };
    const feed = new LiveChannel(io).feed({
      topic: 'protection',
      clusters: ['a'],
      coalesceMs: 10,
      scope: async (s) => scopes[s.id],
    });
    const all = connect('all');
    const ns = connect('ns');
    expect(await all.watch({ topic: 'protection', cluster: 'a' })).toMatchObject({ ok: true });
    expect(await ns.watch({ topic: 'protection', cluster: 'a' })).toMatchObject({ ok: true });
    expect(await connect('none').watch({ topic: 'protection', cluster: 'a' })).toEqual({
      ok: false,
      error: 'podprotectors is forbidden',
    });
    expect([...ns.rooms]).toEqual([]); // not the room: its signals are its own
    feed.mark('a', 'mine/p');
    feed.mark('a', 'theirs/q');
    vi.advanceTimersByTime(10);
    feed.mark('a', 'theirs/q');
    vi.advanceTimersByTime(10);
    expect(sent.filter((s) => s.to === 'live/protection/a').map((s) => s.payload.keys)).toEqual([
      ['mine/p', 'theirs/q'],
      ['theirs/q'],
    ]);
    const own = sent.filter((s) => s.to === 'ns').map((s) => s.payload);
    expect(own.map((p) => p.keys)).toEqual([['mine/p'], []]);
    expect(own[1].fromSeq).toBe(own[0].seq);
    // and after unwatching, nothing more
    ns.unwatch({ topic: 'protection', cluster: 'a' });
    feed.mark('a', 'mine/p');
    vi.advanceTimersByTime(10);
    expect(sent.filter((s) => s.to === 'ns')).toHaveLength(2);
  });

  it('a watch again replaces the last: rights widened, narrowed or gone leave nothing behind', async () => {
    const { io, sent, connect } = fakeIo();
    let scope: Scope = { kind: 'namespaces', namespaces: new Set(['mine']) };
    const feed = new LiveChannel(io).feed({
      topic: 'protection',
      clusters: ['a'],
      coalesceMs: 10,
      scope: async () => scope,
    });
    const c = connect('s');
    const signals = () => {
      feed.mark('a', 'theirs/q');
      vi.advanceTimersByTime(10);
      return {
        room: sent.filter((x) => x.to === 'live/protection/a' && c.rooms.has(x.to)).length,
        own: sent.filter((x) => x.to === 's').length,
      };
    };
    await c.watch({ topic: 'protection', cluster: 'a' });
    expect(signals()).toEqual({ room: 0, own: 1 });
    // widened: the room only, no longer a filtered copy beside it
    scope = { kind: 'all' };
    await c.watch({ topic: 'protection', cluster: 'a' });
    expect(signals()).toEqual({ room: 2, own: 1 });
    // narrowed again: out of the room
    scope = { kind: 'namespaces', namespaces: new Set(['mine']) };
    await c.watch({ topic: 'protection', cluster: 'a' });
    expect([...c.rooms]).toEqual([]);
    expect(signals().own).toBe(2);
    // gone: refused, and nothing more arrives
    scope = { kind: 'denied', message: 'podprotectors is forbidden' };
    expect(await c.watch({ topic: 'protection', cluster: 'a' })).toMatchObject({ ok: false });
    expect(signals().own).toBe(2);
    expect([...c.rooms]).toEqual([]);
  });

  it('one feed per topic, and nothing after stop', () => {
    const { io, sent } = fakeIo();
    const channel = new LiveChannel(io);
    const feed = channel.feed({ topic: 'history', clusters: ['a'] });
    expect(() => channel.feed({ topic: 'history', clusters: ['a'] })).toThrow(/exists already/);
    feed.mark('a');
    channel.stop();
    vi.advanceTimersByTime(1_000);
    feed.mark('a');
    vi.advanceTimersByTime(1_000);
    expect(sent).toEqual([]);
  });
});
