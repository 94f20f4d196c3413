// Fence now: create the node's NodeFence with spec.requestedBy (who, when, why) and approvedBy,
// replacing an ended one (Failed, Cancelled, Recovered) with a delete conditional on its uid and
// resourceVersion. The fencing controller adopts it: Detected with no warning window, then the
// agent, verification and release like any fence. The policy is the one that covers the node
// (first by name, the controller's own rule), read live as the person, like every other fact.
import type * as k8s from '@kubernetes/client-node';
import { selects } from '../../lib/fencing/health.js';
import {
  API_VERSION,
  FENCING_COMPONENT,
  parseFencePolicy,
  TERMINAL_PHASES,
} from '../../lib/fencing/types.js';
import { judgeFenceNode } from '../../lib/guard/fenceNode.js';
import { nodeFacts as fencingNodeFacts } from '../fencing/facts.js';
import type { ActionApis } from './actor.js';
import { ActionError, orMissing } from './errors.js';
import { POLICY_API } from './fencePolicy.js';
import { type Loaded, nodeSummary, type WriteOptions } from './kind.js';
import { FENCE_API, fenceFacts, nodeFacts, readFence, readNode } from './live.js';

/** The FencePolicy the controller would fence this node under: the first by name that selects it. */
export async function coveringPolicy(apis: ActionApis, node: k8s.V1Node) {
  // no FencePolicy CRD (404): no policy covers the node, which the guard then says
  const list = ((await orMissing(apis.custom.listClusterCustomObject({ ...POLICY_API }))) ?? {}) as {
    items?: unknown[];
  };
  const facts = fencingNodeFacts(node);
  return (list.items ?? [])
    .map(parseFencePolicy)
    .flatMap((p) => (p.ok ? [p.value] : []))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
    .find((p) => selects(p.spec, facts));
}

const dry = (o: WriteOptions) => (o.dryRun ? { dryRun: 'All' } : {});

export async function loadFenceNode(
  apis: ActionApis,
  name: string,
  heldByBudget: (node: string) => string | undefined = () => undefined,
): Promise<Loaded> {
  const [node, live] = await Promise.all([readNode(apis, name), readFence(apis, name)]);
  if (!node) throw new ActionError('NOT_FOUND', `node ${name} not found`);
  const policy = await coveringPolicy(apis, node);
  const fence = live && fenceFacts(live.fence);
  const ended = live && TERMINAL_PHASES.has(live.fence.status.phase) ? live.raw.metadata : undefined;
  const verdict = judgeFenceNode({
    nodeName: name,
    node: nodeFacts(node),
    policy: policy && { name: policy.metadata.name, paused: policy.spec.paused },
    fence,
    heldByBudget: heldByBudget(name),
  });
  const policyName = policy?.metadata.name ?? '(none)';
  return {
    action: 'fenceNode',
    target: {
      kind: 'Node',
      apiVersion: 'v1',
      name,
      uid: node.metadata!.uid!,
      resourceVersion: node.metadata!.resourceVersion!,
    },
    verdict,
    will: [
      ...(ended
        ? [`DELETE NodeFence ${name} (${fence!.phase}; conditional on its uid and resourceVersion)`]
        : []),
      `CREATE NodeFence ${name} (policy ${policyName}): spec.requestedBy with who, when and why, and spec.approvedBy`,
      `the fencing controller runs the policy's fence agent against ${name} at once, verifies the node is off or cut from its storage, then releases its pods and volumes`,
    ],
    node: nodeSummary(name, node, fence),
    related: { kind: 'NodeFence', apiVersion: API_VERSION, name },
    what: `asked to fence node ${name} now (policy ${policyName}${fence ? `, replacing NodeFence ${name} ${fence.phase}` : ''})`,
    write: async (o) => {
      if (ended)
        await apis.custom.deleteClusterCustomObject({
          ...FENCE_API,
          name,
          body: { preconditions: { uid: ended.uid, resourceVersion: ended.resourceVersion } },
          ...dry(o),
        });
      // a dry run cannot create beside the ended fence it only pretended to delete
      if (!(ended && o.dryRun)) {
        const at = o.at.toISOString();
        await apis.custom.createClusterCustomObject({
          ...FENCE_API,
          body: {
            apiVersion: API_VERSION,
            kind: 'NodeFence',
            metadata: { name, labels: { 'app.kubernetes.io/managed-by': FENCING_COMPONENT } },
            spec: {
              nodeName: name,
              policy: policyName,
              approvedBy: o.actor.name,
              approvedAt: at,
              requestedBy: { by: o.actor.name, at, reason: o.reason },
            },
          },
          ...dry(o),
        });
      }
      return o.dryRun
        ? `NodeFence ${name} would be ${ended ? 'replaced' : 'created'} (server-side dry run: nothing changed)`
        : `NodeFence ${name} is ${ended ? 'replaced' : 'created'}: the fencing controller fences ${name} now`;
    },
  };
}
