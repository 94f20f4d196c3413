// Evict one pod (lib/guard/evict.ts judges it), as the person: a policy/v1 Eviction with the
// pod's uid and resourceVersion as preconditions, so the pod reviewed is the pod evicted; a
// PodDisruptionBudget or PodProtector that allows no disruption answers 429, which the seam
// reports as "refused for now" in the API server's words. The pod's controller is read live for
// how many replicas it has ready; a person who may not read it gets the verdict without that.
import type * as k8s from '@kubernetes/client-node';
import { podRef } from '../../lib/guard/drain.js';
import { type ControllerStrength, judgeEvict } from '../../lib/guard/evict.js';
import type { ActionApis } from './actor.js';
import { drainPod } from './drain.js';
import { statusOf } from './errors.js';
import { type Loaded, nodeSummary, podTarget } from './kind.js';
import { nodeFacts, readPodOnNode } from './live.js';

export async function loadEvict(apis: ActionApis, namespace: string, name: string): Promise<Loaded> {
  const {
    pod,
    nodeName,
    node,
    fence,
    extra: controller,
  } = await readPodOnNode(apis, namespace, name, (p) => strengthOf(apis, p));
  const facts = drainPod(pod);
  const ref = podRef(facts);
  const uid = pod.metadata!.uid!;
  return {
    action: 'evictPod',
    target: podTarget(pod),
    verdict: judgeEvict({ pod: { ...facts, nodeName }, node: node && nodeFacts(node), controller }),
    will: [
      `POST an Eviction (policy/v1) for pod ${ref}, with preconditions {uid, resourceVersion}: PodDisruptionBudgets and PodProtectors decide; admitted, the pod is deleted with its grace period`,
      ...(facts.controller
        ? [`its ${facts.controller} creates a replacement, which the scheduler places`]
        : []),
    ],
    node: nodeName ? nodeSummary(nodeName, node, fence) : undefined,
    related: nodeName ? { kind: 'Node', apiVersion: 'v1', name: nodeName } : undefined,
    what: `evicted pod ${ref}${nodeName ? ` from node ${nodeName}` : ''} (Eviction API)`,
    // a status write between the review and the eviction is not a new decision: read, judge again
    rebase: true,
    write: async ({ dryRun, resourceVersion }) => {
      await apis.core.createNamespacedPodEviction({
        namespace,
        name,
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name, namespace },
          deleteOptions: { preconditions: { uid, resourceVersion } },
        },
        ...(dryRun ? { dryRun: 'All' } : {}),
      });
      return dryRun
        ? `pod ${ref} would be evicted (server-side dry run: nothing changed)`
        : `pod ${ref} was evicted: it is Terminating, with its grace period`;
    },
  };
}

/** The pod's controller (a ReplicaSet or StatefulSet), its ready replicas against those it wants. */
async function strengthOf(apis: ActionApis, pod: k8s.V1Pod): Promise<ControllerStrength | undefined> {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller);
  const namespace = pod.metadata!.namespace!;
  if (!owner || (owner.kind !== 'ReplicaSet' && owner.kind !== 'StatefulSet')) return undefined;
  try {
    const w =
      owner.kind === 'ReplicaSet'
        ? await apis.apps.readNamespacedReplicaSet({ namespace, name: owner.name })
        : await apis.apps.readNamespacedStatefulSet({ namespace, name: owner.name });
    return {
      kind: owner.kind,
      name: owner.name,
      ready: w.status?.readyReplicas ?? 0,
      desired: w.spec?.replicas ?? 1,
    };
  } catch (e) {
    // not allowed to read it, or gone: judged on the rest
    if (statusOf(e) === 403 || statusOf(e) === 404) return undefined;
    throw e;
  }
}
