// instanceIds.*: the console's view of unique instance IDs (seed 002). `list` gives one row
// per workload using them (the map annotation is set, or the workload is labelled
// palisade.dev/instance-ids-enabled=true) with its entries, stale entries (pods gone,
// terminating or finished), conflicts (an id written twice, a pod with several ids, ids at or
// above the replica count), free ids and pods still waiting, from the console's informers; on
// the embedded cluster also who really holds which ID (the ground truth) and IDs held twice.
// Stale entries whose pods are not known to have stopped say why their IDs are not given to
// another pod (lib/guard/stopped.ts, from the watches). `get` reads one workload live, Jobs included. Each answers only what the person may list.
import * as k8s from '@kubernetes/client-node';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { podView } from '../../lib/console/views.js';
import { instanceCount } from '../../lib/instanceIds/owner.js';
import { type InstanceIdRow, instanceIdRows, type TruthProcess } from '../../lib/instanceIds/rows.js';
import { INSTANCE_IDS_ANNOTATION, INSTANCE_IDS_LABEL, workloadKey } from '../../lib/instanceIds/types.js';
import { describeIdMap } from '../../lib/instanceIds/view.js';
import { isNotFound, errorText } from '../../lib/kube/errorText.js';
import { labelSelectorToString } from '../../lib/kube/labelSelector.js';
import type { HolderRecord } from '../../lib/instanceIds/holders.js';
import { holderFactsOf } from '../instanceIds/holderFacts.js';
import type { ClusterConnection } from '../kube/connection.js';
import { runningProcesses } from '../kube/infra.js';
import {
  allow,
  clusterInput as cluster,
  clusterOf,
  listableNamespaces,
  objectName,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

const KINDS = ['deployments', 'statefulsets', 'replicasets', 'pods'];
const RESOURCE = {
  Deployment: { group: 'apps', resource: 'deployments' },
  StatefulSet: { group: 'apps', resource: 'statefulsets' },
  Job: { group: 'batch', resource: 'jobs' },
} as const;

type TruthState = { available: boolean; error?: string };

async function readTruth(
  conn: ClusterConnection,
): Promise<{ processes?: TruthProcess[]; truth: TruthState }> {
  const ep = conn.spec.infra;
  if (!ep) return { truth: { available: false } };
  try {
    const processes = (await runningProcesses(ep)) as unknown as TruthProcess[];
    return { processes, truth: { available: true } };
  } catch (e) {
    return { truth: { available: false, error: `reading the ground truth failed: ${errorText(e)}` } };
  }
}

/** Rows whose workload and pods the person may list. */
async function visible(ctx: SignedInContext, conn: ClusterConnection, rows: InstanceIdRow[]) {
  const namespaces = [...new Set(rows.map((r) => r.namespace))];
  const [deployments, statefulSets, pods] = await Promise.all([
    listableNamespaces(ctx, conn.id, RESOURCE.Deployment, namespaces),
    listableNamespaces(ctx, conn.id, RESOURCE.StatefulSet, namespaces),
    listableNamespaces(ctx, conn.id, { resource: 'pods' }, namespaces),
  ]);
  const may = (set: Set<string> | undefined, ns: string) => !set || set.has(ns);
  return rows.filter(
    (r) => may(pods, r.namespace) && may(r.kind === 'Deployment' ? deployments : statefulSets, r.namespace),
  );
}

/** One workload read live (any of the three kinds), with its pods listed by its selector. */
async function readOne(
  conn: ClusterConnection,
  kind: keyof typeof RESOURCE,
  namespace: string,
  name: string,
) {
  const apps = conn.spec.kc.makeApiClient(k8s.AppsV1Api);
  const batch = conn.spec.kc.makeApiClient(k8s.BatchV1Api);
  let obj: k8s.V1Deployment | k8s.V1StatefulSet | k8s.V1Job;
  try {
    obj =
      kind === 'Deployment'
        ? await apps.readNamespacedDeployment({ namespace, name })
        : kind === 'StatefulSet'
          ? await apps.readNamespacedStatefulSet({ namespace, name })
          : await batch.readNamespacedJob({ namespace, name });
  } catch (e) {
    if (isNotFound(e))
      throw new TRPCError({ code: 'NOT_FOUND', message: `${kind} ${namespace}/${name} not found` });
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: `reading ${kind} ${namespace}/${name} failed: ${errorText(e)}`,
    });
  }
  const list = await conn.core.listNamespacedPod({
    namespace,
    labelSelector: labelSelectorToString(obj.spec?.selector as never) || undefined,
  });
  return { obj, pods: list.items.map(podView) };
}

export const instanceIdsRouter = router({
  list: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    const { deployments, statefulSets, replicaSets } = conn.informers;
    const now = Date.now();
    const health = conn.health();
    const facts = holderFactsOf(conn);
    const judge = (ns: string, pod: string, record?: HolderRecord) => facts.judgeCached(ns, pod, record);
    const first = instanceIdRows({
      workloads: [...deployments.values(), ...statefulSets.values()],
      replicaSets: replicaSets.values(),
      pods: conn.cache.podList(),
      judge,
    });
    const read = first.length ? await readTruth(conn) : { truth: { available: !!conn.spec.infra } };
    const rows = read.processes
      ? instanceIdRows({
          workloads: [...deployments.values(), ...statefulSets.values()],
          replicaSets: replicaSets.values(),
          pods: conn.cache.podList(),
          truth: read.processes,
          judge,
        })
      : first;
    return {
      cluster: conn.id,
      now,
      embedded: health.embedded,
      /** the informers this view reads have all listed at least once */
      synced: health.informers.filter((i) => KINDS.includes(i.kind)).every((i) => i.synced),
      truth: read.truth,
      rows: await visible(ctx, conn, rows),
    };
  }),
  /** one workload read live: a Deployment, StatefulSet or Job */
  get: procedure
    .input(
      z.object({
        cluster,
        namespace: objectName,
        kind: z.enum(['Deployment', 'StatefulSet', 'Job'], {
          error: 'must be Deployment, StatefulSet or Job',
        }),
        name: objectName,
      }),
    )
    .query(async ({ ctx, input }) => {
      const conn = clusterOf(ctx, input.cluster);
      const { namespace, kind, name } = input;
      await allow(ctx, conn.id, { verb: 'get', ...RESOURCE[kind], namespace, name });
      await allow(ctx, conn.id, { verb: 'list', resource: 'pods', namespace });
      const { obj, pods } = await readOne(conn, kind, namespace, name);
      const m = obj.metadata ?? {};
      const raw = m.annotations?.[INSTANCE_IDS_ANNOTATION];
      const replicas = instanceCount(kind, obj.spec as { replicas?: number; parallelism?: number });
      const view = describeIdMap({
        raw,
        replicas,
        pods: pods.map((p) => ({
          name: p.name,
          uid: p.uid,
          ...(p.node ? { node: p.node } : {}),
          terminating: p.deletionTimestamp !== undefined,
          finished: p.phase === 'Succeeded' || p.phase === 'Failed',
        })),
      });
      const idByPod = new Map(
        view.entries.filter((e) => e.pod && e.id !== undefined).map((e) => [e.pod!, e.id!]),
      );
      return {
        key: workloadKey({ kind, namespace, name }),
        kind,
        namespace,
        name,
        resourceVersion: m.resourceVersion,
        enabled: m.labels?.[INSTANCE_IDS_LABEL] === 'true',
        ...(raw !== undefined ? { raw } : {}),
        ...view,
        pods: pods
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((p) => ({
            name: p.name,
            ...(p.node ? { node: p.node } : {}),
            state: p.state,
            ...(idByPod.has(p.name) ? { id: idByPod.get(p.name) } : {}),
          })),
      };
    }),
});

/** The instance-IDs part of the API, for the page's types. */
const instanceIdsOnly = router({ instanceIds: instanceIdsRouter });
export type InstanceIdsApi = typeof instanceIdsOnly;
