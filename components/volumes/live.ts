'use client';
// Keeps the volumes queries fresh: joins the cluster's volumes room and, on each coalesced
// `volumes:changed`, invalidates volumes.*; so does every `fencing:changed` (a row names the
// fence on its node). Nothing polls — unless the server has no volumes
// feed (it never acknowledges the watch): then the caller refetches on a timer, and says so.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { VolumeEvents, type VolumesChanged, type VolumesWatchAck } from '@/lib/volumes/rwoLive';
import { useSocket } from '../console/live';
import { REJOIN, useFencingLive } from '../fencing/live';
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
  const refresh = useRef<(o?: typeof REJOIN) => void>(() => undefined);
  refresh.current = (o) => void qc.invalidateQueries({ queryKey: trpc.volumes.pathKey() }, o);
  useEffect(() => {
    if (!socket || !cluster) return;
    // the server forgets rooms with the connection: join again after each reconnect, and
    // re-read what may have changed meanwhile
    const watch = () => {
      socket
        .timeout(ACK_TIMEOUT_MS)
        .emit(VolumeEvents.watch, { cluster }, (err: unknown, ack?: VolumesWatchAck) => {
          setState(!err && ack?.ok ? 'live' : 'polling');
        });
      // the first join too: changes were not pushed while the page was closed, and rows cached
      // from an earlier visit may still count as fresh
      refresh.current(REJOIN);
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
