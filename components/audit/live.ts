'use client';
// Keeps the Audit page live: joins the server's audit room and refetches actions.audit on each
// coalesced `audit:changed` for the selected cluster, and after a reconnect (changes may have
// been missed). Nothing polls.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSocket } from '../console/live';
import { useTRPC } from '../console/trpc';

export function useAuditLive(cluster: string | undefined): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const refresh = useRef<() => void>(() => undefined);
  refresh.current = () => void qc.invalidateQueries({ queryKey: trpc.actions.audit.pathKey() });
  const current = useRef(cluster);
  current.current = cluster;
  useEffect(() => {
    if (!socket) return;
    let first = true;
    const join = () => {
      socket.emit('audit:subscribe', {});
      if (!first) refresh.current();
      first = false;
    };
    const changed = (m: { cluster?: string }) => {
      if (!m?.cluster || m.cluster === current.current) refresh.current();
    };
    if (socket.connected) join();
    socket.on('connect', join);
    socket.on('audit:changed', changed);
    return () => {
      socket.off('connect', join);
      socket.off('audit:changed', changed);
      if (socket.connected) socket.emit('audit:unsubscribe', {});
    };
  }, [socket]);
}
