// Force delete a pod: DELETE with gracePeriodSeconds 0 and preconditions {uid, resourceVersion},
// everything in the DeleteOptions body (kube-apiserver reads query parameters only when there is
// no body). The guard decides on the pod, its node, the node's fence and the RWO attachments,
// all read live — and whether a fence is coming for the node (the safe path: wait for it) and
// whether a PodProtector that selects the pod is at its floor.
import { judgeForceDelete } from '../../lib/guard/forceDelete.js';
import type { ForceDetachFacts } from '../../lib/guard/types.js';
import type { ActionApis } from './actor.js';
import { deletionOutcome, type Loaded, nodeSummary, podTarget } from './kind.js';
import { attachedRwo, nodeFacts, readPodOnNode } from './live.js';
import { type BudgetOf, readOutlook } from './outlook.js';
import { protectorFloors } from './protectors.js';

export async function loadForceDelete(
  apis: ActionApis,
  namespace: string,
  name: string,
  forceDetach: ForceDetachFacts,
  /** the fencing controller's budget count over a policy's nodes (undefined: not counted here) */
  budgetOf?: BudgetOf,
): Promise<Loaded> {
  const { pod, nodeName, node, fence, extra } = await readPodOnNode(apis, namespace, name, (p) =>
    Promise.all([attachedRwo(apis, p), protectorFloors(apis, p)]),
  );
  const [rwo, protectors] = extra;
  const outlook = node && nodeName ? await readOutlook(apis, node, budgetOf) : undefined;
  const owner = pod.metadata?.ownerReferences?.find((r) => r.controller);
  const uid = pod.metadata!.uid!;
  const verdict = judgeForceDelete({
    pod: {
      namespace,
      name,
      uid,
      nodeName,
      owner: owner && { kind: owner.kind, name: owner.name },
      phase: pod.status?.phase,
      deletionTimestamp: isoOf(pod.metadata?.deletionTimestamp),
      attachedRwo: rwo,
    },
    node: node && nodeFacts(node),
    nodeFence: fence,
    outlook,
    forceDetach,
    protectors,
  });
  const on = nodeName ? ` on node ${nodeName}` : '';
  return {
    action: 'forceDeletePod',
    target: podTarget(pod),
    verdict,
    will: [
      `DELETE pod ${namespace}/${name} with gracePeriodSeconds 0 and preconditions {uid, resourceVersion}: it leaves the API at once, without waiting for its containers to stop`,
      ...(nodeName
        ? [`the kubelet on ${nodeName}, if it can still hear the API server, stops its containers afterwards`]
        : []),
      ...(owner ? [`${owner.kind} ${owner.name} sees the pod gone and creates its replacement`] : []),
    ],
    node: nodeName ? nodeSummary(nodeName, node, fence) : undefined,
    related: nodeName ? { kind: 'Node', apiVersion: 'v1', name: nodeName } : undefined,
    what: `force-deleted pod ${namespace}/${name}${on} (grace period 0, preconditions uid and resourceVersion)`,
    write: async ({ dryRun, resourceVersion }) => {
      const gone = await apis.core.deleteNamespacedPod({
        namespace,
        name,
        body: {
          gracePeriodSeconds: 0,
          preconditions: { uid, resourceVersion },
          ...(dryRun ? { dryRun: ['All'] } : {}),
        },
      });
      return deletionOutcome(gone, dryRun, `pod ${namespace}/${name}`);
    },
  };
}

/** client-node hands timestamps over as Dates */
const isoOf = (t: Date | string | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
