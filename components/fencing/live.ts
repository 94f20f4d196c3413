'use client';
// Keeps fencing.* fresh from the live channel's fencing topic (useLive) for the selected cluster.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useCluster } from '../console/cluster';
import { useTRPC } from '../console/trpc';
import { useLive } from '../console/useLive';

/** Refetch fencing.* on each signal of the selected cluster's fencing topic. */
export function useFencingLive(): void {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { cluster } = useCluster();
  useLive('fencing', cluster, (_keys, o) => qc.invalidateQueries({ queryKey: trpc.fencing.pathKey() }, o));
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
