'use client';
// Keeps the volumes queries fresh: joins the cluster's volumes room and, on each coalesced
// `volumes:changed`, invalidates volumes.*; so does every `fencing:changed` (a row names the
// fence on its node). Nothing polls — unless the server has no volumes
// feed (it never acknowledges the watch): then the caller refetches on a timer, and says so.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { VolumeEvents, type VolumesChanged, type VolumesWatchAck } from '@/lib/volumes/rwoLive';
import { useSocket } from '../console/live';
import { useFencingLive } from '../fencing/live';
import { useVolumesTRPC } from './api';

const ACK_TIMEOUT_MS = 3_000;

/** 'live': pushed changes; 'polling': no feed on the server; 'connecting': not known yet. */
export type VolumesLiveState = 'connecting' | 'live' | 'polling';

export function useVolumesLive(cluster: string | undefined): VolumesLiveState {
  const trpc = useVolumesTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const [state, setState] = useState<VolumesLiveState>('connecting');
  useFencingLive();
  const refresh = useRef<() => void>(() => undefined);
  refresh.current = () => void qc.invalidateQueries({ queryKey: trpc.volumes.pathKey() });
  useEffect(() => {
    if (!socket || !cluster) return;
    let first = true;
    // the server forgets rooms with the connection: join again after each reconnect, and
    // re-read what may have changed meanwhile
    const watch = () => {
      socket
        .timeout(ACK_TIMEOUT_MS)
        .emit(VolumeEvents.watch, { cluster }, (err: unknown, ack?: VolumesWatchAck) => {
          setState(!err && ack?.ok ? 'live' : 'polling');
        });
      if (!first) refresh.current();
      first = false;
    };
    const changed = (m: VolumesChanged) => m.cluster === cluster && refresh.current();
    const fencing = (m: { cluster?: string }) => (!m?.cluster || m.cluster === cluster) && refresh.current();
    if (socket.connected) watch();
    socket.on('connect', watch);
    socket.on(VolumeEvents.changed, changed);
    socket.on('fencing:changed', fencing);
    return () => {
      socket.off('connect', watch);
      socket.off(VolumeEvents.changed, changed);
      socket.off('fencing:changed', fencing);
      if (socket.connected) socket.emit(VolumeEvents.unwatch, { cluster });
    };
  }, [socket, cluster]);
  return state;
}
