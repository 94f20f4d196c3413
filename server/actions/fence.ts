// Approve or cancel a NodeFence: a merge patch of its spec (approvedBy/approvedAt, or
// cancelRequested) carrying metadata.resourceVersion, so a fence the controller moved on since
// the decision answers 409. A fence only announced (no NodeFence yet) is cancelled by creating
// its NodeFence already cancelled: a create answers 409 if the controller made one meanwhile.
// When the node's NodeFence is one of an earlier incident (ended), the cancel is written into
// its spec instead (conditional on its resourceVersion), and the controller renews it as this
// incident's, cancelled.
// The fencing controller does the rest: it runs the agent after an approval, and honours a
// cancellation only until an agent has run.
import * as k8s from '@kubernetes/client-node';
import { judgeApproveFence, judgeCancelAnnounced, judgeCancelFence } from '../../lib/guard/fence.js';
import { newIncidentSince } from '../../lib/fencing/machine.js';
import { API_VERSION, nodeFenceObject, TERMINAL_PHASES } from '../../lib/fencing/types.js';
import { nodeFacts as fencingNodeFacts } from '../fencing/facts.js';
import type { ActionApis } from './actor.js';
import { ActionError } from './errors.js';
import { coveringPolicyOf } from './fenceNode.js';
import { type Loaded, nodeSummary, nodeTarget, type WriteOptions } from './kind.js';
import { FENCE_API, fenceFacts, type LiveFence, nodeFacts, readFence, readNode } from './live.js';

async function load(apis: ActionApis, name: string, read?: LiveFence) {
  const live = read ?? (await readFence(apis, name));
  if (!live) throw new ActionError('NOT_FOUND', `NodeFence ${name} not found`);
  const node = await readNode(apis, live.fence.spec.nodeName);
  return { live, node, facts: fenceFacts(live.fence) };
}

function target(live: LiveFence) {
  const m = live.raw.metadata ?? {};
  return {
    kind: 'NodeFence',
    apiVersion: API_VERSION,
    name: live.fence.metadata.name,
    uid: m.uid!,
    resourceVersion: m.resourceVersion!,
  };
}

function patch(apis: ActionApis, name: string, spec: object, o: WriteOptions) {
  return apis.custom.patchClusterCustomObject(
    {
      ...FENCE_API,
      name,
      body: { metadata: { resourceVersion: o.resourceVersion }, spec },
      ...(o.dryRun ? { dryRun: 'All' } : {}),
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

const dry = (o: WriteOptions) => (o.dryRun ? ' (server-side dry run: nothing changed)' : '');

export async function loadApproveFence(apis: ActionApis, name: string): Promise<Loaded> {
  const { live, node, facts } = await load(apis, name);
  const nodeName = facts.nodeName;
  return {
    action: 'approveFence',
    target: target(live),
    verdict: judgeApproveFence({ fence: facts, node: node && nodeFacts(node) }),
    will: [
      `PATCH NodeFence ${name} (conditional on its resourceVersion): spec.approvedBy and spec.approvedAt`,
      `the fencing controller runs the policy's fence agent against ${nodeName} (${live.fence.spec.policy}), verifies the node is off or cut from its storage, then releases its pods and volumes`,
    ],
    node: nodeSummary(nodeName, node, facts),
    related: { kind: 'Node', apiVersion: 'v1', name: nodeName },
    what: `approved NodeFence ${name} (node ${nodeName}, policy ${live.fence.spec.policy})`,
    write: async (o) => {
      await patch(apis, name, { approvedBy: o.actor.name, approvedAt: o.at.toISOString() }, o);
      return `NodeFence ${name} ${o.dryRun ? 'would be' : 'is'} approved${dry(o)}`;
    },
  };
}

/**
 * Cancel a fence announced before its NodeFence exists: create the NodeFence already carrying
 * spec.cancelRequested (the controller then records it Cancelled before anything runs, and
 * starts no fence for this incident). Target: the Node, which the NodeFence is named after.
 */
async function loadCancelAnnounced(apis: ActionApis, name: string): Promise<Loaded> {
  const node = await readNode(apis, name);
  // neither a NodeFence nor a Node of that name: the fence asked for does not exist
  if (!node) throw new ActionError('NOT_FOUND', `NodeFence ${name} not found`);
  const policy = await coveringPolicyOf(apis, node);
  const policyName = policy?.name ?? '(none)';
  return {
    action: 'cancelFence',
    target: nodeTarget(node),
    verdict: judgeCancelAnnounced({
      nodeName: name,
      node: nodeFacts(node),
      policy: policy && { name: policy.name, paused: policy.spec.paused },
    }),
    will: [
      `CREATE NodeFence ${name} (policy ${policyName}) with spec.cancelRequested: who, when and why`,
      'the fencing controller marks it Cancelled at once: no fence of this incident starts',
    ],
    node: nodeSummary(name, node),
    related: { kind: 'NodeFence', apiVersion: API_VERSION, name },
    what: `cancelled the fence announced for node ${name} (policy ${policyName}) before it started`,
    // the controller may create the NodeFence between this read and the create (409): read again
    rebase: true,
    write: async (o) => {
      await apis.custom.createClusterCustomObject({
        ...FENCE_API,
        body: nodeFenceObject(name, {
          policy: policyName,
          cancelRequested: { by: o.actor.name, at: o.at.toISOString(), reason: o.reason },
        }),
        ...(o.dryRun ? { dryRun: 'All' } : {}),
      });
      return `the fence announced for ${name} ${o.dryRun ? 'would be' : 'is'} cancelled${dry(o)}`;
    },
  };
}

/**
 * Cancel a fence announced for a new incident on a node whose NodeFence is an ended one of an
 * earlier incident: spec.cancelRequested is written into it (conditional on its resourceVersion;
 * one write, so the controller cannot replace it in between). The controller renews it as this
 * incident's fence, then records it Cancelled.
 */
async function loadCancelAnnouncedOverEnded(
  apis: ActionApis,
  live: LiveFence,
  node: k8s.V1Node,
  policy: Awaited<ReturnType<typeof coveringPolicyOf>>,
): Promise<Loaded> {
  const name = live.fence.metadata.name;
  const nodeName = live.fence.spec.nodeName;
  const policyName = policy?.name ?? '(none)';
  return {
    action: 'cancelFence',
    target: target(live),
    verdict: judgeCancelAnnounced({
      nodeName,
      node: nodeFacts(node),
      policy: policy && { name: policy.name, paused: policy.spec.paused },
    }),
    will: [
      `PATCH NodeFence ${name} (${live.fence.status.phase}, of an earlier incident; conditional on its resourceVersion): spec.cancelRequested with who, when and why`,
      'the fencing controller renews it for this incident and marks it Cancelled at once: no fence of this incident starts',
    ],
    node: nodeSummary(nodeName, node),
    related: { kind: 'Node', apiVersion: 'v1', name: nodeName },
    what: `cancelled the fence announced for node ${nodeName} (policy ${policyName}) before it started`,
    write: async (o) => {
      await patch(
        apis,
        name,
        { cancelRequested: { by: o.actor.name, at: o.at.toISOString(), reason: o.reason } },
        o,
      );
      return `the fence announced for ${nodeName} ${o.dryRun ? 'would be' : 'is'} cancelled${dry(o)}`;
    },
  };
}

/** An ended NodeFence's node failing again: the new incident the policy announces, if so. */
async function announcedOverEnded(apis: ActionApis, live: LiveFence) {
  if (!TERMINAL_PHASES.has(live.fence.status.phase)) return undefined;
  const node = await readNode(apis, live.fence.spec.nodeName);
  if (!node) return undefined;
  const policy = await coveringPolicyOf(apis, node);
  if (!policy) return undefined;
  const since = newIncidentSince(live.fence, policy.spec, fencingNodeFacts(node), Date.now());
  return since === undefined ? undefined : { node, policy };
}

export async function loadCancelFence(apis: ActionApis, name: string): Promise<Loaded> {
  const read = await readFence(apis, name);
  if (!read) return loadCancelAnnounced(apis, name);
  const announced = await announcedOverEnded(apis, read);
  if (announced) return loadCancelAnnouncedOverEnded(apis, read, announced.node, announced.policy);
  const { live, node, facts } = await load(apis, name, read);
  const nodeName = facts.nodeName;
  // announced when the dialog opened (its target the Node), detected since: cancelling the fence
  // of this incident is the same decision, still before any agent (issue 25: the window is short)
  const waiting = facts.phase === 'Detected' || facts.phase === 'AwaitingApproval';
  const nodeUid = node?.metadata?.uid;
  return {
    action: 'cancelFence',
    target: target(live),
    verdict: judgeCancelFence({ fence: facts }),
    ...(waiting && nodeUid && (!facts.nodeUid || facts.nodeUid === nodeUid)
      ? { supersedes: { kind: 'Node', uid: nodeUid } }
      : {}),
    // before any agent, a cancel is safe whatever the controller wrote into the status since
    ...(waiting && !facts.cancelRequestedBy ? { rebase: true } : {}),
    will: [
      `PATCH NodeFence ${name} (conditional on its resourceVersion): spec.cancelRequested with who, when and why`,
      'the fencing controller marks it Cancelled before any fence agent runs',
    ],
    node: nodeSummary(nodeName, node, facts),
    related: { kind: 'Node', apiVersion: 'v1', name: nodeName },
    what: `asked to cancel NodeFence ${name} (node ${nodeName}, phase ${facts.phase})`,
    write: async (o) => {
      await patch(
        apis,
        name,
        { cancelRequested: { by: o.actor.name, at: o.at.toISOString(), reason: o.reason } },
        o,
      );
      return `cancellation of NodeFence ${name} ${o.dryRun ? 'would be' : 'is'} requested${dry(o)}`;
    },
  };
}
