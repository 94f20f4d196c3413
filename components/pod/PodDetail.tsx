'use client';
import { ForceDeleteButton } from '../actions/GuardedActionButtons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { podKey, type PodView } from '@/lib/console/protocol';
import { apiSteps, type EndpointChangeLike } from '@/lib/console/ui/apiSteps';
import { deletionRequestedAt, nodeDisplayState, POD_DOT_CLASS } from '@/lib/console/ui/states';
import type { PodDetail as PodDetailData } from '../console/api-types';
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useNodes, usePods } from '../console/live';
import { EventsTable } from '../console/EventsTable';
import { useGhosts, useTerminationSteps } from '../console/groundTruth';
import { GhostList } from '../sim/GhostList';
import { useTRPC } from '../console/trpc';
import {
  claimsOf,
  conditionsOf,
  containersOf,
  type EventRow,
  eventsOf,
  type StepRow,
  stepsOf,
} from './normalize';
import { Card, ClaimsCard, ConditionsCard, ContainersCard, StatusCard } from './PodCards';
import { PodProtection } from './PodProtection';
import { ReplacedEvents, ReplacedNotice, replacedOf } from './ReplacedNotice';
import { TerminationTimeline } from './TerminationTimeline';

/** The kubelet's recorded steps (embedded cluster) plus what the API itself tells. */
function withApiSteps(
  kubelet: StepRow[] | undefined,
  data: PodDetailData | undefined,
  events: EventRow[],
  pod: PodView,
): StepRow[] | undefined {
  const loose = data as unknown as { endpoints?: EndpointChangeLike[]; deletedAt?: number } | undefined;
  const extra = apiSteps({
    events,
    endpoints: Array.isArray(loose?.endpoints) ? loose.endpoints : [],
    deletedAt: typeof loose?.deletedAt === 'number' ? loose.deletedAt : undefined,
    requestedAt: deletionRequestedAt(pod),
    kubeletSteps: (kubelet?.length ?? 0) > 0,
  });
  if (!kubelet && extra.length === 0) return undefined;
  return [...(kubelet ?? []), ...extra];
}

export function PodDetail({
  cluster,
  namespace,
  name,
}: {
  cluster: string;
  namespace: string;
  name: string;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { cluster: selected, setCluster, clusters } = useCluster();
  // the route names the cluster: make it the selected one so live data follows it
  useEffect(() => {
    if (selected !== cluster && (!clusters || clusters.some((c) => c.id === cluster))) setCluster(cluster);
  }, [cluster, selected, clusters, setCluster]);

  const input = { cluster, namespace, name };
  const detail = useQuery({ ...trpc.pods.get.queryOptions(input), retry: 0, staleTime: 0 });
  // read loosely: the page copes with small differences in the server's shape
  const data = detail.data as unknown as PodDetailData | undefined;
  const livePods = usePods(selected === cluster ? cluster : undefined);
  const nodes = useNodes(selected === cluster ? cluster : undefined);
  const live = livePods?.byKey.get(podKey({ namespace, name }));
  const gone = !!livePods && !live;
  const pod: PodView | undefined = live ?? data?.pod;

  // Event-driven refresh of the detail (events, steps): when the live pod changes or disappears,
  // and at the grace deadline (SIGKILL follows at least 2 s after it). No polling.
  const queryKey = useMemo(
    () => trpc.pods.get.queryKey({ cluster, namespace, name }),
    [trpc, cluster, namespace, name],
  );
  const lastRv = useRef<string | undefined>(undefined);
  const liveRv = live?.resourceVersion;
  useEffect(() => {
    const key = liveRv ?? (gone ? 'gone' : undefined);
    if (key === undefined || key === lastRv.current) return;
    const first = lastRv.current === undefined;
    lastRv.current = key;
    if (!first) void qc.invalidateQueries({ queryKey });
  }, [liveRv, gone, qc, queryKey]);
  const deadline = pod?.deletionTimestamp;
  useEffect(() => {
    if (deadline === undefined || gone) return;
    const timers = [250, 2_500, 5_000]
      .map((extra) => deadline + extra - Date.now())
      .filter((ms) => ms > 0)
      .map((ms) => setTimeout(() => void qc.invalidateQueries({ queryKey }), ms));
    return () => timers.forEach(clearTimeout);
  }, [deadline, gone, qc, queryKey]);

  // the kubelet's steps (preStop, SIGTERM, exit…) change no API object: they are pushed
  const refresh = useCallback(() => void qc.invalidateQueries({ queryKey }), [qc, queryKey]);
  const embedded = !!clusters?.find((c) => c.id === cluster)?.embedded;
  useTerminationSteps(embedded ? cluster : undefined, pod?.uid, refresh);
  const ghostsMsg = useGhosts(embedded ? cluster : undefined);
  const ghosts = useMemo(
    () => ghostsMsg?.ghosts.filter((g) => g.namespace === namespace && g.podName === name) ?? [],
    [ghostsMsg, namespace, name],
  );

  const now = useNow(1000) || Date.now();
  const node = pod?.node ? nodes?.byKey.get(pod.node) : undefined;
  const nodeState = node ? nodeDisplayState(node, now) : undefined;

  if (!pod) {
    return (
      <div className="p-4">
        <Breadcrumb cluster={cluster} namespace={namespace} name={name} />
        <p className="mt-4 text-dim" role="status">
          {detail.isError ? `Cannot load pod: ${detail.error.message}` : 'Loading pod…'}
        </p>
      </div>
    );
  }
  const conditions = conditionsOf(data?.conditions);
  const containers = containersOf(data?.containerStatuses);
  const claims = claimsOf(data?.claims, pod.claims);
  // the detail of an earlier pod of this name may still be loaded: never show its events as this one's
  const fresh = data?.pod?.uid === pod.uid;
  const events = fresh ? eventsOf(data?.events) : [];
  const replaced = fresh ? replacedOf(data) : undefined;
  const { steps: kubeletSteps, error: stepsError } = stepsOf(data);
  const steps = withApiSteps(kubeletSteps, data, events, pod);
  const terminating = pod.deletionTimestamp !== undefined || (kubeletSteps?.length ?? 0) > 0;

  return (
    <div className="flex flex-col gap-3 overflow-auto p-3 text-sm">
      <Breadcrumb cluster={cluster} namespace={namespace} name={name} />
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="font-mono text-lg font-semibold">
          <span className="text-dim">{namespace}/</span>
          {name}
        </h1>
        <span className="flex items-center gap-1.5 rounded border border-line px-2 py-0.5">
          <span
            className={`inline-block h-2.5 w-2.5 rounded-sm ${POD_DOT_CLASS[pod.state]}`}
            aria-hidden="true"
          />
          {pod.state}
        </span>
        {gone && (
          <span className="rounded bg-muted/20 px-2 py-0.5 text-dim">
            deleted from the cluster — showing its last known state
          </span>
        )}
        {detail.isFetching && <span className="text-xs text-dim">refreshing…</span>}
        {detail.isError && data && (
          <span className="text-xs text-warn">detail may be stale: {detail.error.message}</span>
        )}
        {!gone && (
          <span className="ml-auto">
            <ForceDeleteButton
              cluster={cluster}
              namespace={namespace}
              name={name}
              disabled={clusters?.find((c) => c.id === cluster)?.mode === 'read-only'}
            />
          </span>
        )}
      </header>

      {replaced && <ReplacedNotice cluster={cluster} pod={pod} replaced={replaced} />}

      <GhostList ghosts={ghosts} title="Processes out of the API's sight" now={now} />

      {terminating && <TerminationTimeline pod={pod} steps={steps} gone={gone} stepsError={stepsError} />}

      {!gone && (
        <PodProtection cluster={cluster} namespace={namespace} name={name} terminating={terminating} />
      )}

      <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
        <StatusCard pod={pod} nodeState={nodeState} now={now} />
        <ConditionsCard conditions={conditions} loaded={!!data} />
        <ContainersCard containers={containers} loaded={!!data} />
        <ClaimsCard claims={claims} />
      </div>

      <Card title={`Events (${events.length})`}>
        <EventsTable events={events} empty={fresh ? 'no events' : 'loading…'} />
      </Card>

      {replaced && <ReplacedEvents replaced={replaced} />}
    </div>
  );
}

function Breadcrumb({ cluster, namespace, name }: { cluster: string; namespace: string; name: string }) {
  return (
    <nav aria-label="Breadcrumb" className="text-xs text-dim">
      <Link href="/pods" className="hover:underline">
        Pods
      </Link>{' '}
      / <span>{cluster}</span> / <span>{namespace}</span> / <span className="text-fg">{name}</span>
    </nav>
  );
}
