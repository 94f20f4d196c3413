'use client';
// The incident view, live from the live channel's incident topic (useLive) for the selected
// cluster. Typed through IncidentApi (a type-only import).
import type { inferRouterOutputs } from '@trpc/server';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { IncidentApi } from '@/server/trpc/incident';
import { useCluster } from '../console/cluster';
import { useTRPC } from '../console/trpc';
import { useLive } from '../console/useLive';

export type IncidentData = inferRouterOutputs<IncidentApi>['incident']['view'];

export function useIncident() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { cluster } = useCluster();
  useLive('incident', cluster, (_keys, o) => qc.invalidateQueries({ queryKey: trpc.incident.pathKey() }, o));
  return {
    cluster,
    query: useQuery({ ...trpc.incident.view.queryOptions({ cluster: cluster ?? '' }), enabled: !!cluster }),
  };
}
