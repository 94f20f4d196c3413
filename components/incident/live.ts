'use client';
// The incident view, live: joins the server's incident room and refetches incident.view on each
// coalesced `incident:changed` for the selected cluster (and on joining, when changes may have
// been missed: after a reconnect, or since the page was last open). Nothing polls. Typed through IncidentApi (a type-only import).
import type { inferRouterOutputs } from '@trpc/server';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { IncidentApi } from '@/server/trpc/incident';
import { useCluster } from '../console/cluster';
import { useSocket } from '../console/live';
import { REJOIN } from '../fencing/live';
import { useTRPC } from '../console/trpc';

export type IncidentData = inferRouterOutputs<IncidentApi>['incident']['view'];

const useIncidentTRPC = useTRPC;

export function useIncident() {
  const trpc = useIncidentTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const { cluster } = useCluster();
  const refresh = useRef<(o?: typeof REJOIN) => void>(() => undefined);
  refresh.current = (o) => void qc.invalidateQueries({ queryKey: trpc.incident.pathKey() }, o);
  useEffect(() => {
    if (!socket || !cluster) return;
    // every join, the first included: changes were not pushed while the page was closed, and a
    // view cached from an earlier visit may still count as fresh
    const join = () => {
      socket.emit('incident:subscribe', {});
      refresh.current(REJOIN);
    };
    const changed = (m: { cluster?: string }) => m?.cluster === cluster && refresh.current();
    if (socket.connected) join();
    socket.on('connect', join);
    socket.on('incident:changed', changed);
    return () => {
      socket.off('connect', join);
      socket.off('incident:changed', changed);
      if (socket.connected) socket.emit('incident:unsubscribe', {});
    };
  }, [socket, cluster]);
  return {
    cluster,
    query: useQuery({ ...trpc.incident.view.queryOptions({ cluster: cluster ?? '' }), enabled: !!cluster }),
  };
}
