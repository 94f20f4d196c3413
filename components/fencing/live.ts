'use client';
// Keeps fencing.* fresh: joins the server's fencing room and invalidates the fencing queries on
// each coalesced `fencing:changed`. Holders are counted per socket (map, panel and page may
// hold the room at once). Nothing polls.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { useCluster } from '../console/cluster';
import { useSocket } from '../console/live';
import { useTRPC } from '../console/trpc';

const holders = new WeakMap<object, number>();
/** after (re)joining a room: refetch what is shown, without restarting a fetch already under way */
export const REJOIN = { cancelRefetch: false } as const;

export function useFencingLive(): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const socket = useSocket();
  const refresh = useRef<(o?: typeof REJOIN) => void>(() => undefined);
  refresh.current = (o) => void qc.invalidateQueries({ queryKey: trpc.fencing.pathKey() }, o);
  useEffect(() => {
    if (!socket) return;
    // nobody held the room until now: what changed meanwhile was not pushed, and a list cached
    // from an earlier visit may still count as fresh (a page left and opened again within the
    // stale time showed a fence as it was before it changed)
    const unheld = (holders.get(socket) ?? 0) === 0;
    holders.set(socket, (holders.get(socket) ?? 0) + 1);
    let first = true;
    const join = () => {
      socket.emit('fencing:subscribe', {});
      // changes may have been missed while disconnected or while the room was not held
      if (!first || unheld) refresh.current(REJOIN);
      first = false;
    };
    const changed = () => refresh.current();
    if (socket.connected) join();
    socket.on('connect', join);
    socket.on('fencing:changed', changed);
    return () => {
      socket.off('connect', join);
      socket.off('fencing:changed', changed);
      const left = (holders.get(socket) ?? 1) - 1;
      holders.set(socket, left);
      if (left === 0 && socket.connected) socket.emit('fencing:unsubscribe', {});
    };
  }, [socket]);
}

/** The selected cluster's fencing list, live. */
export function useFencing() {
  const trpc = useTRPC();
  const { cluster } = useCluster();
  useFencingLive();
  return useQuery({ ...trpc.fencing.list.queryOptions({ cluster: cluster ?? '' }), enabled: !!cluster });
}

export type FencingList = NonNullable<ReturnType<typeof useFencing>['data']>;
export type FenceRow = Extract<FencingList, { enabled: true }>['fences'][number];

/** node name -> its latest NodeFence, for the map's tiles and the node panel */
export function useNodeFences(): Map<string, FenceRow> {
  const { data } = useFencing();
  return useMemo(() => new Map(data?.enabled ? data.fences.map((f) => [f.node, f]) : []), [data]);
}

/** What a node's tile shows of fencing: its NodeFence's phase, or the fence a policy will start. */
export interface FenceBadge {
  phase?: FenceRow['status']['phase'];
  fenceAt?: string;
  paused: boolean;
  policy: string;
  agentType?: FenceRow['agentType'];
}

/** node name -> its fence badge (a NodeFence, or an upcoming fence), for the map's tiles */
export function useFenceBadges(): Map<string, FenceBadge> {
  const { data } = useFencing();
  return useMemo(() => {
    const m = new Map<string, FenceBadge>();
    if (!data?.enabled) return m;
    for (const f of data.fences)
      m.set(f.node, {
        phase: f.status.phase,
        fenceAt: f.fenceAt,
        paused: f.paused,
        policy: f.policy,
        agentType: f.agentType,
      });
    // an upcoming fence is the next incident of a node whose last fence is over: it wins
    for (const u of data.upcoming) m.set(u.node, { fenceAt: u.fenceAt, paused: u.paused, policy: u.policy });
    return m;
  }, [data]);
}
