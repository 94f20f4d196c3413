'use client';
// Keeps fencing.* fresh from the live channel's fencing topic (useLive) for the selected cluster.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { type Announced, type AnnouncedSummary, announcedFences, summarize } from '@/lib/fencing/announced';
import { cancelledByUser } from '@/lib/fencing/ended';
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
  /** what Cancel names: the NodeFence, or the node for an upcoming fence */
  fence: string;
  phase?: FenceRow['status']['phase'];
  fenceAt?: string;
  paused: boolean;
  policy: string;
  agentType?: FenceRow['agentType'];
  /** announced (lib/fencing/announced): Palisade runs it by itself unless someone cancels it */
  cancellable: boolean;
  /** a person cancelled it: the node is held until someone fences it by hand */
  cancelledBy?: string;
  /** the fencing budget holds this node's fence (why, in words) */
  held?: string;
}

/** node name -> its fence badge (a NodeFence, or an upcoming fence), for the map's tiles */
export function useFenceBadges(): Map<string, FenceBadge> {
  const { data } = useFencing();
  return useMemo(() => {
    const m = new Map<string, FenceBadge>();
    if (!data?.enabled) return m;
    const announced = new Set(announcedFences(data.fences, data.upcoming).map((a) => a.node));
    for (const f of data.fences)
      m.set(f.node, {
        fence: f.name,
        phase: f.status.phase,
        fenceAt: f.fenceAt,
        paused: f.paused,
        policy: f.policy,
        agentType: f.agentType,
        cancellable: announced.has(f.node),
        cancelledBy: f.status.phase === 'Cancelled' && cancelledByUser(f) ? cancellerOf(f) : undefined,
      });
    // an upcoming fence is the next incident of a node whose last fence is over: it wins
    for (const u of data.upcoming)
      m.set(u.node, {
        fence: u.node,
        fenceAt: u.fenceAt,
        paused: u.paused,
        policy: u.policy,
        cancellable: true,
      });
    for (const h of data.held) {
      const b = m.get(h.node);
      m.set(
        h.node,
        b
          ? { ...b, held: h.why }
          : { fence: h.node, paused: false, policy: '', cancellable: false, held: h.why },
      );
    }
    return m;
  }, [data]);
}

/** The announced fences (lib/fencing/announced), live: one list for the bar, tiles, panel and incident view. */
export function useAnnounced(): {
  summary: AnnouncedSummary;
  policies: FencingPolicies;
  /** node name -> its announced fence */
  byNode: Map<string, Announced>;
} {
  const { data } = useFencing();
  return useMemo(() => {
    const items = data?.enabled ? announcedFences(data.fences, data.upcoming) : [];
    return {
      summary: summarize(items),
      policies: data?.enabled ? data.policies : [],
      byNode: new Map(items.map((a) => [a.node, a])),
    };
  }, [data]);
}

export type FencingPolicies = Extract<FencingList, { enabled: true }>['policies'];

/** Who cancelled a fence: the cancel request's person, when the spec names one. */
function cancellerOf(f: FenceRow): string {
  return f.spec.cancelRequested?.by ?? 'a person';
}
