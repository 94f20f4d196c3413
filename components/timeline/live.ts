'use client';
// Keeps the Timeline page live: joins the server's history room and refetches history.timeline
// on each coalesced `history:changed` for the shown cluster, and after a reconnect (changes may
// have been missed). Nothing polls.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSocket } from '../console/live';
import { useTRPC } from '../console/trpc';

export function useHistoryLive(cluster: string | undefined): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const refresh = useRef<() => void>(() => undefined);
  refresh.current = () => void qc.invalidateQueries({ queryKey: trpc.history.timeline.pathKey() });
  const current = useRef(cluster);
  current.current = cluster;
  useEffect(() => {
    if (!socket) return;
    let first = true;
    const join = () => {
      socket.emit('history:subscribe', {});
      if (!first) refresh.current();
      first = false;
    };
    const changed = (m: { cluster?: string }) => {
      if (!m?.cluster || m.cluster === current.current) refresh.current();
    };
    if (socket.connected) join();
    socket.on('connect', join);
    socket.on('history:changed', changed);
    return () => {
      socket.off('connect', join);
      socket.off('history:changed', changed);
      if (socket.connected) socket.emit('history:unsubscribe', {});
    };
  }, [socket]);
}
