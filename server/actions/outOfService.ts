// Remove the out-of-service taint from a node: a merge patch that replaces spec.taints with the
// list minus that taint and carries metadata.resourceVersion, the version the decision was made
// on (kube-apiserver answers 409 if the node changed since). Not a JSON patch setting
// /metadata/resourceVersion: kube-apiserver honours that too, the embedded API server does not.
import * as k8s from '@kubernetes/client-node';
import { OUT_OF_SERVICE_TAINT } from '../../lib/fencing/types.js';
import { judgeRemoveOutOfServiceTaint } from '../../lib/guard/outOfService.js';
import type { ActionApis } from './actor.js';
import { ActionError } from './errors.js';
import { type Loaded, nodeSummary, nodeTarget } from './kind.js';
import { fenceOfNode, nodeFacts, readNode } from './live.js';

const TAINT = `${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value}:${OUT_OF_SERVICE_TAINT.effect}`;

export async function loadRemoveTaint(apis: ActionApis, name: string): Promise<Loaded> {
  const [node, fence] = await Promise.all([readNode(apis, name), fenceOfNode(apis, name)]);
  if (!node) throw new ActionError('NOT_FOUND', `node ${name} not found`);
  const verdict = judgeRemoveOutOfServiceTaint({ node: nodeFacts(node), nodeFence: fence });
  const rest = (node.spec?.taints ?? []).filter((t) => t.key !== OUT_OF_SERVICE_TAINT.key);
  return {
    action: 'removeOutOfServiceTaint',
    target: nodeTarget(node),
    verdict,
    will: [
      `PATCH node ${name} (merge patch, conditional on its resourceVersion): remove the taint ${TAINT}`,
      'PodGC stops force-deleting its terminating pods, and the attach/detach controller again waits for its volumes to be unmounted before detaching them',
      'once the node is Ready and has no other NoSchedule taint, the scheduler places pods on it again',
    ],
    node: nodeSummary(name, node, fence),
    what: `removed the taint ${TAINT} from node ${name}`,
    write: async ({ dryRun, resourceVersion }) => {
      // a JSON merge patch replaces the whole list; its resourceVersion makes it conditional
      await apis.core.patchNode(
        {
          name,
          body: { metadata: { resourceVersion }, spec: { taints: rest.length > 0 ? rest : null } },
          ...(dryRun ? { dryRun: 'All' } : {}),
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      return `the taint ${dryRun ? 'would be' : 'was'} removed from node ${name}${dryRun ? ' (server-side dry run: nothing changed)' : ''}`;
    },
  };
}
