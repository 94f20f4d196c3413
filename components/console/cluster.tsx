'use client';
// The selected cluster: chosen in the top bar (remembered in localStorage), defaulting to the
// embedded cluster. A route that names a cluster (pod detail) selects it.
import { useQuery } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { ClusterSummary } from './api-types';
import { useTRPC } from './trpc';

const STORAGE_KEY = 'palisade.cluster';

interface ClusterCtx {
  cluster: string | undefined;
  setCluster: (id: string) => void;
  clusters: ClusterSummary[] | undefined;
  current: ClusterSummary | undefined;
  listError: string | undefined;
  listLoading: boolean;
}

const Ctx = createContext<ClusterCtx | null>(null);

export function ClusterProvider({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const list = useQuery({
    ...trpc.clusters.list.queryOptions(),
    staleTime: Number.POSITIVE_INFINITY,
    retry: 2,
  });
  const [chosen, setChosen] = useState<string | undefined>(undefined);

  useEffect(() => {
    try {
      const saved = window.localStorage.getItem(STORAGE_KEY);
      if (saved) setChosen((c) => c ?? saved);
    } catch {
      // storage unavailable: no memory of the choice
    }
  }, []);

  const setCluster = useCallback((id: string) => {
    setChosen(id);
    try {
      window.localStorage.setItem(STORAGE_KEY, id);
    } catch {
      // ignore
    }
  }, []);

  const clusters = list.data as ClusterSummary[] | undefined;
  const cluster = useMemo(() => {
    if (!clusters) return chosen;
    if (chosen && clusters.some((c) => c.id === chosen)) return chosen;
    return (clusters.find((c) => c.embedded) ?? clusters[0])?.id;
  }, [clusters, chosen]);

  const value = useMemo<ClusterCtx>(
    () => ({
      cluster,
      setCluster,
      clusters,
      current: clusters?.find((c) => c.id === cluster),
      listError: list.error ? list.error.message : undefined,
      listLoading: list.isPending,
    }),
    [cluster, setCluster, clusters, list.error, list.isPending],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useCluster(): ClusterCtx {
  const c = useContext(Ctx);
  if (!c) throw new Error('useCluster outside ClusterProvider');
  return c;
}
