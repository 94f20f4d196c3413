// Cordon, uncordon and drain a node (lib/guard/drain.ts judges them), as the person:
// - cordon/uncordon: a merge patch of spec.unschedulable carrying metadata.resourceVersion;
// - drain: the cordon, then one Eviction (policy/v1, with the pod's uid as a precondition) per
//   pod the plan evicts, four at a time, so PodDisruptionBudgets and PodProtectors decide for
//   each pod; a 429 is their refusal and is reported, not retried (drain again to retry).
// The decision rests on the live reading (cordoned or not, the pods there now), so the write is
// conditional on the node's resourceVersion just read, re-read and re-judged on a 409 (rebase):
// the kubelet's status writes must not cost a person their drain.
import * as k8s from '@kubernetes/client-node';
import {
  type DrainPod,
  drainOutcome,
  drainPlan,
  type EvictionResult,
  judgeCordon,
  judgeDrain,
  judgeUncordon,
  podRef,
} from '../../lib/guard/drain.js';
import { errorText } from '../../lib/kube/errorText.js';
import type { ActionApis } from './actor.js';
import { ActionError, statusOf } from './errors.js';
import { type Loaded, nodeSummary, nodeTarget } from './kind.js';
import { fenceOfNode, nodeFacts, readNode } from './live.js';

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
/** evictions in flight at once (kubectl drain sends them all; a console shares the API server) */
const EVICTIONS_AT_ONCE = 4;

async function readNodeAndFence(apis: ActionApis, name: string) {
  const [node, fence] = await Promise.all([readNode(apis, name), fenceOfNode(apis, name)]);
  if (!node) throw new ActionError('NOT_FOUND', `node ${name} not found`);
  return { node, fence };
}

function setUnschedulable(
  apis: ActionApis,
  name: string,
  on: boolean,
  resourceVersion: string,
  dryRun: boolean,
) {
  return apis.core.patchNode(
    {
      name,
      body: { metadata: { resourceVersion }, spec: { unschedulable: on ? true : null } },
      ...(dryRun ? { dryRun: 'All' } : {}),
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

export async function loadCordon(apis: ActionApis, name: string, cordon: boolean): Promise<Loaded> {
  const { node, fence } = await readNodeAndFence(apis, name);
  const unschedulable = node.spec?.unschedulable === true;
  const input = { node: nodeFacts(node), unschedulable };
  const verb = cordon ? 'cordoned' : 'uncordoned';
  return {
    action: cordon ? 'cordonNode' : 'uncordonNode',
    target: nodeTarget(node),
    verdict: cordon ? judgeCordon(input) : judgeUncordon(input),
    will: [
      `PATCH node ${name} (merge patch, conditional on its resourceVersion): spec.unschedulable ${cordon ? 'true' : 'removed'}`,
      cordon
        ? 'the scheduler places no new pod there; nothing running there is stopped'
        : 'the scheduler may place pods there again',
    ],
    node: nodeSummary(name, node, fence),
    what: `${verb} node ${name}`,
    rebase: true,
    write: async ({ dryRun, resourceVersion }) => {
      await setUnschedulable(apis, name, cordon, resourceVersion, dryRun);
      return `node ${name} ${dryRun ? 'would be' : 'was'} ${verb}${dryRun ? ' (server-side dry run: nothing changed)' : ''}`;
    },
  };
}

export function drainPod(p: k8s.V1Pod): DrainPod {
  const m = p.metadata ?? {};
  return {
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    controller: m.ownerReferences?.find((o) => o.controller)?.kind,
    mirror: !!m.annotations?.[MIRROR_ANNOTATION],
    terminating: !!m.deletionTimestamp,
    emptyDir: (p.spec?.volumes ?? []).some((v) => !!v.emptyDir),
  };
}

async function evict(apis: ActionApis, p: DrainPod, dryRun: boolean): Promise<EvictionResult> {
  const pod = podRef(p);
  try {
    await apis.core.createNamespacedPodEviction({
      name: p.name,
      namespace: p.namespace,
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: p.name, namespace: p.namespace },
        // the pod reviewed, not a namesake a StatefulSet made meanwhile
        deleteOptions: { preconditions: { uid: p.uid } },
      },
      ...(dryRun ? { dryRun: 'All' } : {}),
    });
    return { pod, outcome: 'evicted' };
  } catch (e) {
    const code = statusOf(e);
    // gone, or replaced by a namesake (the uid precondition's 409): the pod reviewed has left
    if (code === 404 || code === 409) return { pod, outcome: 'gone' };
    if (code === 429) return { pod, outcome: 'refused', message: errorText(e).replace(/^HTTP 429: /, '') };
    return { pod, outcome: 'failed', message: errorText(e) };
  }
}

async function evictAll(apis: ActionApis, pods: readonly DrainPod[], dryRun: boolean) {
  const results: EvictionResult[] = new Array(pods.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < pods.length; i = next++) results[i] = await evict(apis, pods[i]!, dryRun);
  };
  await Promise.all(Array.from({ length: Math.min(EVICTIONS_AT_ONCE, pods.length) }, worker));
  return results;
}

export async function loadDrain(apis: ActionApis, name: string): Promise<Loaded> {
  const { node, fence } = await readNodeAndFence(apis, name);
  const pods = await apis.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${name}` });
  const plan = drainPlan(pods.items.map(drainPod));
  const unschedulable = node.spec?.unschedulable === true;
  const n = plan.evict.length;
  return {
    action: 'drainNode',
    target: nodeTarget(node),
    verdict: judgeDrain({ node: nodeFacts(node), unschedulable, plan }),
    will: [
      unschedulable
        ? `node ${name} is already cordoned`
        : `PATCH node ${name} (merge patch, conditional on its resourceVersion): spec.unschedulable true`,
      n === 0
        ? 'no pod to evict'
        : `POST an Eviction for each of ${n} ${n === 1 ? 'pod' : 'pods'} (${plan.evict.map(podRef).join(', ')}), as kubectl drain does: a PodDisruptionBudget or PodProtector may refuse one (429), which then stays`,
    ],
    node: nodeSummary(name, node, fence),
    what: `drained node ${name}`,
    rebase: true,
    recordOutcome: true,
    write: async ({ dryRun, resourceVersion }) => {
      if (!unschedulable) await setUnschedulable(apis, name, true, resourceVersion, dryRun);
      const results = await evictAll(apis, plan.evict, dryRun);
      return drainOutcome(name, !unschedulable, results, dryRun);
    },
  };
}
