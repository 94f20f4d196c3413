'use client';
// Keeps the protection queries fresh: joins the server's protection room and, on each
// coalesced `protection:changed`, invalidates the protection.* queries. Nothing polls.
// Several components on one page (map summary, tiles, pod page) may hold the room at once:
// holders are counted per socket so the first to unmount does not leave it for the others.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSocket } from '../console/live';
import { useTRPC } from '../console/trpc';

const SUBSCRIBE = 'protection:subscribe';
const UNSUBSCRIBE = 'protection:unsubscribe';
const holders = new WeakMap<object, number>();

export function useProtectionLive(): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const refresh = useRef<() => void>(() => undefined);
  refresh.current = () => void qc.invalidateQueries({ queryKey: trpc.protection.pathKey() });
  useEffect(() => {
    if (!socket) return;
    holders.set(socket, (holders.get(socket) ?? 0) + 1);
    let first = true;
    // joining is idempotent; after a reconnect we may have missed changes: re-read everything
    const join = () => {
      socket.emit(SUBSCRIBE, {});
      if (!first) refresh.current();
      first = false;
    };
    const changed = () => refresh.current();
    if (socket.connected) join();
    socket.on('connect', join);
    socket.on('protection:changed', changed);
    return () => {
      socket.off('connect', join);
      socket.off('protection:changed', changed);
      const left = (holders.get(socket) ?? 1) - 1;
      holders.set(socket, left);
      if (left === 0 && socket.connected) socket.emit(UNSUBSCRIBE, {});
    };
  }, [socket]);
}
