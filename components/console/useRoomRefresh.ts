'use client';
// Keeps a page live through one server room (`<room>:subscribe`, coalesced `<room>:changed`
// naming the cluster): `refresh` runs on each change for the shown cluster (or one that names
// none), and after a reconnect, when changes may have been missed. Nothing polls.
import { useEffect, useRef } from 'react';
import { useSocket } from './live';

export function useRoomRefresh(room: string, cluster: string | undefined, refresh: () => void): void {
  const socket = useSocket();
  const latest = useRef(refresh);
  latest.current = refresh;
  const current = useRef(cluster);
  current.current = cluster;
  useEffect(() => {
    if (!socket) return;
    let first = true;
    const join = () => {
      socket.emit(`${room}:subscribe`, {});
      if (!first) latest.current();
      first = false;
    };
    const changed = (m: { cluster?: string }) => {
      if (!m?.cluster || m.cluster === current.current) latest.current();
    };
    if (socket.connected) join();
    socket.on('connect', join);
    socket.on(`${room}:changed`, changed);
    return () => {
      socket.off('connect', join);
      socket.off(`${room}:changed`, changed);
      if (socket.connected) socket.emit(`${room}:unsubscribe`, {});
    };
  }, [socket, room]);
}
