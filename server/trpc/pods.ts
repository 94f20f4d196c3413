// pods.get: the cached view, the pod's live details, its events, its claims' volumes
// and, on the embedded cluster, the kubelet's termination steps. A pod deleted a moment
// ago is still answered from its last view, so its termination story can be read.
import * as k8s from '@kubernetes/client-node';
import { TRPCError } from '@trpc/server';
import type { PodView } from '../../lib/console/protocol.js';
import { type PodDetail, podDetail, podView } from '../../lib/console/views.js';
import type { ClusterConnection } from '../kube/connection.js';
import { terminationSteps, type TerminationStep } from '../kube/infra.js';
import { errorText } from '../../lib/kube/errorText.js';
import { splitEvents } from '../../lib/console/replaced.js';

async function readLive(conn: ClusterConnection, namespace: string, name: string) {
  try {
    return { pod: await conn.core.readNamespacedPod({ namespace, name }) };
  } catch (e) {
    if (e instanceof k8s.ApiException && e.code === 404) return {};
    return { error: `reading the pod from the API failed: ${errorText(e)}` };
  }
}

async function termination(conn: ClusterConnection, uid: string) {
  const ep = conn.spec.infra;
  if (!ep || !uid) return undefined;
  try {
    return { steps: await terminationSteps(ep, uid) };
  } catch (e) {
    return { steps: [] as TerminationStep[], error: errorText(e) };
  }
}

function claimsWithVolumes(conn: ClusterConnection, pod: PodView) {
  const { persistentVolumeClaims: pvcs, volumeAttachments: vas } = conn.informers;
  const attachments = [...vas.values()];
  return pod.claims.map((claim) => {
    const pv = pvcs.get(`${pod.namespace}/${claim}`)?.boundTo;
    const attachedTo = attachments.filter((a) => a.pv === pv && a.attached).map((a) => a.node);
    return { claim, pv, attachedTo };
  });
}

export async function podDetails(conn: ClusterConnection, namespace: string, name: string) {
  const live = await readLive(conn, namespace, name);
  const cached = conn.cache.pod(namespace, name);
  const pod: PodView | undefined = live.pod
    ? podView(live.pod)
    : (cached ?? conn.cache.deletedPod(namespace, name));
  if (!pod) throw new TRPCError({ code: 'NOT_FOUND', message: `pod "${namespace}/${name}" not found` });
  const detail: PodDetail | undefined = live.pod ? podDetail(live.pod) : undefined;
  // a pod of the same name before this one (a StatefulSet's replacement): its own events apart
  const before = conn.cache.replacedPod(namespace, name);
  const previous = before && before.view.uid !== pod.uid ? before : undefined;
  const events = splitEvents(conn.cache.eventsFor('Pod', namespace, name), pod, previous?.view);
  return {
    pod,
    deleted: !live.pod && !live.error && !cached,
    ...(live.error ? { detailError: live.error } : {}),
    conditions: detail?.conditions ?? [],
    containerStatuses: detail?.containerStatuses ?? [],
    volumes: detail?.volumes ?? [],
    claims: claimsWithVolumes(conn, pod),
    events: events.current,
    ...(previous
      ? {
          replaced: {
            uid: previous.view.uid,
            node: previous.view.node,
            createdAt: previous.view.createdAt,
            until: previous.at,
            events: events.previous,
          },
        }
      : {}),
    termination: await termination(conn, pod.uid),
    /** when the pod left its Services' endpoints, as the console observed it */
    endpoints: conn.endpoints.changesFor(pod.uid),
    /** when the console saw the pod object go */
    deletedAt: conn.cache.podDeletedAt(namespace, name),
  };
}
