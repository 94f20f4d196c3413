'use client';
// The one hook that keeps a page live (lib/console/live.ts): it watches a topic of a cluster while
// mounted and calls `refetch` on each signal — with the keys that changed where the signal names
// them, with nothing (refetch all) on a gap in the numbering or a signal without keys. It watches
// again after every reconnect (the server forgets watches with the connection) and refetches on
// every watch, the first included: nothing was pushed while the page was closed, and data cached
// from an earlier visit may still count as fresh. Several components may watch one topic at once
// (map tiles, a panel, the page): the watch is counted per socket, so the first to unmount does not
// end it for the others. Nothing polls — unless the server never answers the watch (it has no such
// feed): the state says 'polling' and the caller refetches on a timer.
import { useEffect, useRef, useState } from 'react';
import { afterSignal, type LiveAck, type LiveChanged, LiveEvents, type Topic } from '@/lib/console/live';
import { useSocket } from './live';

const ACK_TIMEOUT_MS = 3_000;

/** 'live': signals come; 'polling': the server has no feed for it; 'connecting': not known yet. */
export type LiveState = 'connecting' | 'live' | 'polling';

/** Watches held per socket, by topic and cluster. */
const holders = new WeakMap<object, Map<string, number>>();

function hold(socket: object, key: string, by: 1 | -1): number {
  const m = holders.get(socket) ?? new Map<string, number>();
  holders.set(socket, m);
  const n = Math.max(0, (m.get(key) ?? 0) + by);
  if (n) m.set(key, n);
  else m.delete(key);
  return n;
}

/**
 * Keep a page's data fresh from one topic of one cluster. `refetch(keys)` gets the keys that
 * changed, or undefined for everything; `cancelRefetch` says whether a fetch under way may be
 * restarted (not after a (re)watch, whose refetch only makes sure nothing was missed).
 */
export function useLive(
  topic: Topic,
  cluster: string | undefined,
  refetch: (keys: string[] | undefined, opts: { cancelRefetch: boolean }) => void,
): LiveState {
  const socket = useSocket();
  const [state, setState] = useState<LiveState>('connecting');
  const latest = useRef(refetch);
  latest.current = refetch;
  useEffect(() => {
    if (!socket || !cluster) return;
    const key = `${topic}/${cluster}`;
    hold(socket, key, 1);
    let seq: number | undefined;
    let gone = false;
    const watch = () => {
      seq = undefined;
      socket
        .timeout(ACK_TIMEOUT_MS)
        .emit(LiveEvents.watch, { topic, cluster }, (err: unknown, ack?: LiveAck) => {
          if (gone) return;
          if (!err && ack?.ok) seq = ack.seq;
          setState(!err && ack?.ok ? 'live' : 'polling');
        });
      latest.current(undefined, { cancelRefetch: false });
    };
    const changed = (c: LiveChanged) => {
      if (c.topic !== topic || c.cluster !== cluster) return;
      const next = afterSignal(seq, c);
      seq = next.seq;
      if (next.refetch === 'all') latest.current(undefined, { cancelRefetch: true });
      else if (next.refetch !== 'none') latest.current(next.refetch, { cancelRefetch: true });
    };
    if (socket.connected) watch();
    socket.on('connect', watch);
    socket.on(LiveEvents.changed, changed);
    return () => {
      gone = true;
      socket.off('connect', watch);
      socket.off(LiveEvents.changed, changed);
      if (hold(socket, key, -1) === 0 && socket.connected)
        socket.emit(LiveEvents.unwatch, { topic, cluster });
    };
  }, [socket, topic, cluster]);
  return state;
}
