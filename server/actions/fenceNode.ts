// Fence now: create the node's NodeFence with spec.requestedBy (who, when, why) and approvedBy,
// or, on an ended one (Failed, Cancelled, Recovered), write those into its spec (a merge patch
// conditional on its resourceVersion, clearing a cancel request): one write, so the controller
// cannot slip an automatic fence in between as it could between a delete and a create. The
// fencing controller adopts it: Detected with no warning window, then the agent, verification
// and release like any fence. The policy is the one that covers the node
// (lib/fencing/coverage.ts, the controller's own rule), read live as the person, like every other fact.
import * as k8s from '@kubernetes/client-node';
import { coveringPolicy } from '../../lib/fencing/coverage.js';
import { API_VERSION, nodeFenceObject, parseFencePolicy, TERMINAL_PHASES } from '../../lib/fencing/types.js';
import { judgeFenceNode } from '../../lib/guard/fenceNode.js';
import { nodeFacts as fencingNodeFacts } from '../fencing/facts.js';
import type { ActionApis } from './actor.js';
import { ActionError, orMissing } from './errors.js';
import { POLICY_API } from './fencePolicy.js';
import { type Loaded, nodeSummary, nodeTarget, type WriteOptions } from './kind.js';
import { FENCE_API, fenceFacts, nodeFacts, readFence, readNode } from './live.js';

/** The FencePolicy the controller would fence this node under (lib/fencing/coverage.ts, its own rule). */
export async function coveringPolicyOf(apis: ActionApis, node: k8s.V1Node) {
  // no FencePolicy CRD (404): no policy covers the node, which the guard then says
  const list = ((await orMissing(apis.custom.listClusterCustomObject({ ...POLICY_API }))) ?? {}) as {
    items?: unknown[];
  };
  const entries = (list.items ?? []).flatMap((raw) => {
    const p = parseFencePolicy(raw);
    return p.ok ? [{ name: p.value.metadata.name, spec: p.value.spec }] : [];
  });
  const c = coveringPolicy(entries, fencingNodeFacts(node), undefined);
  return c?.spec && { name: c.name, spec: c.spec };
}

const dry = (o: WriteOptions) => (o.dryRun ? { dryRun: 'All' } : {});

export async function loadFenceNode(
  apis: ActionApis,
  name: string,
  heldByBudget: (node: string) => string | undefined = () => undefined,
): Promise<Loaded> {
  const [node, live] = await Promise.all([readNode(apis, name), readFence(apis, name)]);
  if (!node) throw new ActionError('NOT_FOUND', `node ${name} not found`);
  const policy = await coveringPolicyOf(apis, node);
  const fence = live && fenceFacts(live.fence);
  const ended = live && TERMINAL_PHASES.has(live.fence.status.phase) ? live.raw.metadata : undefined;
  const verdict = judgeFenceNode({
    nodeName: name,
    node: nodeFacts(node),
    policy: policy && { name: policy.name, paused: policy.spec.paused },
    fence,
    heldByBudget: heldByBudget(name),
  });
  const policyName = policy?.name ?? '(none)';
  return {
    action: 'fenceNode',
    target: nodeTarget(node),
    verdict,
    will: [
      ended
        ? `PATCH NodeFence ${name} (${fence!.phase}; conditional on its resourceVersion): spec.requestedBy with who, when and why, spec.approvedBy, and no cancel request`
        : `CREATE NodeFence ${name} (policy ${policyName}): spec.requestedBy with who, when and why, and spec.approvedBy`,
      `the fencing controller runs the policy's fence agent against ${name} at once, verifies the node is off or cut from its storage, then releases its pods and volumes`,
    ],
    node: nodeSummary(name, node, fence),
    related: { kind: 'NodeFence', apiVersion: API_VERSION, name },
    what: `asked to fence node ${name} now (policy ${policyName}${fence ? `, starting NodeFence ${name} ${fence.phase} again` : ''})`,
    write: async (o) => {
      const at = o.at.toISOString();
      const request = {
        approvedBy: o.actor.name,
        approvedAt: at,
        requestedBy: { by: o.actor.name, at, reason: o.reason },
      };
      if (ended)
        await apis.custom.patchClusterCustomObject(
          {
            ...FENCE_API,
            name,
            body: {
              metadata: { resourceVersion: ended.resourceVersion },
              spec: { ...request, cancelRequested: null },
            },
            ...dry(o),
          },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
      else
        await apis.custom.createClusterCustomObject({
          ...FENCE_API,
          body: nodeFenceObject(name, { policy: policyName, ...request }),
          ...dry(o),
        });
      const verb = ended ? 'started again' : 'created';
      return o.dryRun
        ? `NodeFence ${name} would be ${verb} (server-side dry run: nothing changed)`
        : `NodeFence ${name} is ${verb}: the fencing controller fences ${name} now`;
    },
  };
}
