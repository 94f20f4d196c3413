'use client';
// Keeps the instance-IDs query fresh: joins the cluster's instance-IDs room and, on each
// coalesced `instance-ids:changed`, invalidates instanceIds.*. Nothing polls — unless the
// server has no such feed (it never acknowledges the watch): then the page refetches on a
// timer, and says so.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { InstanceIdEvents, type InstanceIdsChanged, type InstanceIdsWatchAck } from '@/lib/instanceIds/live';
import { useSocket } from '../console/live';
import { useInstanceIdsTRPC } from './api';

const ACK_TIMEOUT_MS = 3_000;

export type InstanceIdsLiveState = 'connecting' | 'live' | 'polling';

export function useInstanceIdsLive(cluster: string | undefined): InstanceIdsLiveState {
  const trpc = useInstanceIdsTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const [state, setState] = useState<InstanceIdsLiveState>('connecting');
  const refresh = useRef<() => void>(() => undefined);
  refresh.current = () => void qc.invalidateQueries({ queryKey: trpc.instanceIds.pathKey() });
  useEffect(() => {
    if (!socket || !cluster) return;
    let first = true;
    // rooms are forgotten with the connection: join again after a reconnect and re-read
    const watch = () => {
      socket
        .timeout(ACK_TIMEOUT_MS)
        .emit(InstanceIdEvents.watch, { cluster }, (err: unknown, ack?: InstanceIdsWatchAck) => {
          setState(!err && ack?.ok ? 'live' : 'polling');
        });
      if (!first) refresh.current();
      first = false;
    };
    const changed = (m: InstanceIdsChanged) => m.cluster === cluster && refresh.current();
    if (socket.connected) watch();
    socket.on('connect', watch);
    socket.on(InstanceIdEvents.changed, changed);
    return () => {
      socket.off('connect', watch);
      socket.off(InstanceIdEvents.changed, changed);
      if (socket.connected) socket.emit(InstanceIdEvents.unwatch, { cluster });
    };
  }, [socket, cluster]);
  return state;
}
