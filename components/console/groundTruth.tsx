'use client';
// The embedded cluster's ground truth in the browser: one watch of the selected cluster's
// ghosts (processes running where the API cannot see them) for the whole app, kept in the
// React Query cache; and a pod's kubelet termination steps, pushed as they happen.
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { type GhostsMessage, SimEvents, type TerminationStepMessage } from '@/lib/console/protocol';
import { useCluster } from './cluster';
import { useRoom, useSocket } from './live';

export const ghostsKey = (cluster: string | undefined) => ['sim', cluster ?? '', 'ghosts'] as const;

const GHOSTS = { watch: SimEvents.watchGhosts, unwatch: SimEvents.unwatchGhosts };
const TERMINATION = { watch: SimEvents.watchTermination, unwatch: SimEvents.unwatchTermination };

/** Watches the selected cluster's ghosts while it is Palisade's embedded cluster. */
export function GroundTruthProvider({ children }: { children: ReactNode }) {
  const { cluster, current } = useCluster();
  const socket = useSocket();
  const qc = useQueryClient();
  const embedded = !!current?.embedded;
  useEffect(() => {
    if (!socket) return;
    const onGhosts = (m: GhostsMessage) => qc.setQueryData(ghostsKey(m.cluster), m);
    socket.on(SimEvents.ghosts, onGhosts);
    return () => {
      socket.off(SimEvents.ghosts, onGhosts);
    };
  }, [socket, qc]);
  useRoom(embedded ? GHOSTS : undefined, cluster ? { cluster } : undefined);
  return <>{children}</>;
}

/** The latest ghosts message of a cluster (undefined: not the embedded cluster, or not yet). */
export function useGhosts(cluster: string | undefined): GhostsMessage | undefined {
  return useQuery<GhostsMessage>({ queryKey: ghostsKey(cluster), queryFn: skipToken }).data;
}

/** Calls `onStep` for each termination step of the pod the kubelet records, and on reconnects. */
export function useTerminationSteps(
  cluster: string | undefined,
  podUid: string | undefined,
  onStep: (step?: TerminationStepMessage) => void,
): void {
  const socket = useSocket();
  useEffect(() => {
    if (!socket || !podUid) return;
    const handler = (m: TerminationStepMessage) => {
      if (m.cluster === cluster && m.podUid === podUid) onStep(m);
    };
    socket.on(SimEvents.terminationStep, handler);
    return () => {
      socket.off(SimEvents.terminationStep, handler);
    };
  }, [socket, cluster, podUid, onStep]);
  useRoom(TERMINATION, cluster && podUid ? { cluster, podUid } : undefined, onStep);
}
