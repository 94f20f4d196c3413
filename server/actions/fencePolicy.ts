// Pause or resume a FencePolicy: a merge patch of spec.paused (and annotations saying who, when
// and why, which the Fencing page shows) carrying metadata.resourceVersion, so a policy changed
// since the decision answers 409. The fencing controller does the rest: a paused policy starts
// no fence and holds detected ones before their agent; resumed, it reschedules every node.
import * as k8s from '@kubernetes/client-node';
import {
  GROUP,
  parseFencePolicy,
  POLICY_PLURAL,
  TERMINAL_PHASES,
  VERSION,
  API_VERSION,
  parseNodeFence,
} from '../../lib/fencing/types.js';
import { PAUSE_ANNOTATIONS } from '../../lib/fencing/policyAdmission.js';
import { judgePausePolicy, judgeResumePolicy } from '../../lib/guard/fencePolicy.js';
import type { ActionApis } from './actor.js';
import { ActionError, orMissing } from './errors.js';
import type { Loaded, WriteOptions } from './kind.js';
import { FENCE_API } from './live.js';

export const POLICY_API = { group: GROUP, version: VERSION, plural: POLICY_PLURAL } as const;

/**
 * Who paused a policy, when and why: annotations on it (the audit Event says it too). Changing
 * them, like spec.paused, needs the verb `pause` (lib/fencing/policyAdmission.ts).
 */
export { PAUSE_ANNOTATIONS };

async function readPolicy(apis: ActionApis, name: string) {
  const raw = (await orMissing(apis.custom.getClusterCustomObject({ ...POLICY_API, name }))) as
    | { metadata?: k8s.V1ObjectMeta }
    | undefined;
  if (!raw) throw new ActionError('NOT_FOUND', `FencePolicy ${name} not found`);
  const p = parseFencePolicy(raw);
  if (!p.ok) throw new ActionError('PRECONDITION_FAILED', `FencePolicy ${name} is malformed: ${p.error}`);
  return { policy: p.value, raw };
}

/** Nodes whose fence under this policy has not run an agent yet (what a pause holds, a resume lets go). */
async function waitingFences(apis: ActionApis, policy: string): Promise<string[]> {
  const all = (await apis.custom.listClusterCustomObject({ ...FENCE_API })) as { items?: unknown[] };
  return (all.items ?? [])
    .map((o) => parseNodeFence(o))
    .flatMap((p) => (p.ok ? [p.value] : []))
    .filter((f) => f.spec.policy === policy && !TERMINAL_PHASES.has(f.status.phase))
    .filter((f) => f.status.phase === 'Detected' || f.status.phase === 'AwaitingApproval')
    .map((f) => f.spec.nodeName)
    .sort();
}

export async function loadPausePolicy(apis: ActionApis, name: string, pause: boolean): Promise<Loaded> {
  const { policy, raw } = await readPolicy(apis, name);
  const waiting = await waitingFences(apis, name);
  const facts = { name, paused: policy.spec.paused, waiting, warningWindow: policy.spec.warningWindow };
  const verb = pause ? 'paused' : 'resumed';
  return {
    action: pause ? 'pauseFencePolicy' : 'resumeFencePolicy',
    target: {
      kind: 'FencePolicy',
      apiVersion: API_VERSION,
      name,
      uid: raw.metadata!.uid!,
      resourceVersion: raw.metadata!.resourceVersion!,
    },
    verdict: pause ? judgePausePolicy(facts) : judgeResumePolicy(facts),
    will: [
      `PATCH FencePolicy ${name} (conditional on its resourceVersion): spec.paused ${pause}${pause ? ', with who, when and why as annotations' : ''}`,
      pause
        ? 'the fencing controller starts no fence for this policy and holds detected ones before their agent'
        : 'the fencing controller looks at every node again: held fences whose warning window is over run their agent',
    ],
    what: `${verb} FencePolicy ${name}${waiting.length ? ` (fences waiting: ${waiting.join(', ')})` : ''}`,
    write: async (o: WriteOptions) => {
      const annotations = pause
        ? {
            [PAUSE_ANNOTATIONS.by]: o.actor.name,
            [PAUSE_ANNOTATIONS.at]: o.at.toISOString(),
            [PAUSE_ANNOTATIONS.reason]: o.reason,
          }
        : { [PAUSE_ANNOTATIONS.by]: null, [PAUSE_ANNOTATIONS.at]: null, [PAUSE_ANNOTATIONS.reason]: null };
      await apis.custom.patchClusterCustomObject(
        {
          ...POLICY_API,
          name,
          body: { metadata: { resourceVersion: o.resourceVersion, annotations }, spec: { paused: pause } },
          ...(o.dryRun ? { dryRun: 'All' } : {}),
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      return `FencePolicy ${name} ${o.dryRun ? 'would be' : 'is'} ${verb}${o.dryRun ? ' (server-side dry run: nothing changed)' : ''}`;
    },
  };
}
