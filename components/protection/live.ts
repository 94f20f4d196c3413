'use client';
// Keeps the protection queries fresh: joins the server's protection room and, on each
// coalesced `protection:changed`, invalidates the protection.* queries. Nothing polls.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { useRoom, useSocket } from '../console/live';
import { useTRPC } from '../console/trpc';

const ROOM = { watch: 'protection:subscribe', unwatch: 'protection:unsubscribe' };
const ARGS = {};

export function useProtectionLive(): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const refresh = useCallback(
    () => void qc.invalidateQueries({ queryKey: trpc.protection.pathKey() }),
    [qc, trpc],
  );
  // after a reconnect we may have missed changes: re-read everything
  useRoom(ROOM, ARGS, refresh);
  useEffect(() => {
    if (!socket) return;
    socket.on('protection:changed', refresh);
    return () => {
      socket.off('protection:changed', refresh);
    };
  }, [socket, refresh]);
}
