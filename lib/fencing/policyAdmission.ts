// Who may change what in a FencePolicy, whichever client writes it. Palisade's admission webhook
// (fencepolicies.palisade.dev) judges every CREATE and UPDATE: pausing or resuming a policy
// (spec.paused and the palisade.dev/paused-* annotations) needs the custom verb `pause`; creating
// one or changing anything else in its spec needs `configure` — the agent, its parameters, its
// credentials, which nodes, how fast — so the role that pauses cannot rewrite what Palisade runs.
// A write that changes the spec must also be a valid policy whose exec agent the agent rule
// (lib/fenceAgents/policy.ts) allows; a pause alone is never refused for what the policy already
// says (pausing a bad policy is the safe move). Palisade's own writes need no verb.
// Pure: the verbs a write needs (asked of the cluster by SubjectAccessReview), or why it is invalid.
import { judgeExecAgent, verdictText } from '../fenceAgents/policy.js';
import { canonicalJson } from '../workloads/hash.js';
import { fencePolicySpec } from './types.js';

/** Who paused a policy, when and why (the console writes them with spec.paused). */
export const PAUSE_ANNOTATIONS = {
  by: 'palisade.dev/paused-by',
  at: 'palisade.dev/paused-at',
  reason: 'palisade.dev/paused-reason',
} as const;

export type PolicyVerb = 'pause' | 'configure';

export interface PolicyObject {
  spec?: unknown;
  annotations?: Record<string, string> | null;
}

export interface PolicyWrite {
  /** undefined on CREATE */
  old?: PolicyObject;
  new: PolicyObject;
  /** the requester is Palisade itself: no verb asked */
  self: boolean;
  /** palisade.yaml fencing.credentialsNamespaces */
  credentialsNamespaces: readonly string[];
}

export type PolicyVerdict = { kind: 'needs'; verbs: PolicyVerb[] } | { kind: 'invalid'; message: string };

const specOf = (o: PolicyObject | undefined) =>
  o?.spec && typeof o.spec === 'object' ? (o.spec as Record<string, unknown>) : {};

/** the spec as configured: all of it but whether it is paused */
function configured(o: PolicyObject | undefined): string {
  const { paused: _, ...rest } = specOf(o);
  return canonicalJson(rest);
}

const pausedOf = (o: PolicyObject | undefined) => specOf(o).paused === true;

function pauseAnnotations(o: PolicyObject | undefined): string {
  const a = o?.annotations ?? {};
  return canonicalJson(Object.values(PAUSE_ANNOTATIONS).map((k) => a[k] ?? null));
}

/** A spec as Palisade reads it, or why not: the zod schema, then the exec agent rule. */
export function policySpecProblem(
  spec: unknown,
  credentialsNamespaces: readonly string[],
): string | undefined {
  const r = fencePolicySpec.safeParse(spec ?? {});
  if (!r.success) {
    const i = r.error.issues[0];
    return `spec${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`;
  }
  const agent = r.data.agent;
  if (agent.type !== 'exec') return undefined;
  const v = judgeExecAgent(agent, { credentialsNamespaces });
  return v.ok ? undefined : verdictText(v);
}

export function judgePolicyWrite(w: PolicyWrite): PolicyVerdict {
  const creating = w.old === undefined;
  const reconfigured = creating || configured(w.old) !== configured(w.new);
  const pausing =
    !creating && (pausedOf(w.old) !== pausedOf(w.new) || pauseAnnotations(w.old) !== pauseAnnotations(w.new));
  if (reconfigured) {
    const problem = policySpecProblem(w.new.spec, w.credentialsNamespaces);
    if (problem) return { kind: 'invalid', message: problem };
  }
  if (w.self) return { kind: 'needs', verbs: [] };
  const verbs: PolicyVerb[] = [];
  if (reconfigured) verbs.push('configure');
  if (pausing) verbs.push('pause');
  return { kind: 'needs', verbs };
}
