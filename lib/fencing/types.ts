// FencePolicy and NodeFence (palisade.dev/v1alpha1), validated with zod wherever Palisade reads
// one: an object written by kubectl or by an older Palisade must never crash the controller.
// Field names and condition types follow medik8s Fence Agents Remediation where they overlap
// (agent, shared and per-node parameters, retry count/interval/timeout, remediation strategy,
// Processing / FenceAgentActionSucceeded / Succeeded), so its users read them without a glossary.
import { z } from 'zod';

export const GROUP = 'palisade.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const POLICY_PLURAL = 'fencepolicies';
export const FENCE_PLURAL = 'nodefences';

/** The taint that tells Kubernetes a node's workloads are gone (KEP-2268, GA in 1.28). */
export const OUT_OF_SERVICE_TAINT = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
} as const;

/** Who acts, on every NodeFence step and every guarded action. */
export const FENCING_COMPONENT = 'palisade-fencing';

/** A new NodeFence as written to the API: named after its node, labelled as Palisade's. */
export function nodeFenceObject(node: string, spec: Omit<NodeFenceSpec, 'nodeName'>) {
  return {
    apiVersion: API_VERSION,
    kind: 'NodeFence',
    metadata: { name: node, labels: { 'app.kubernetes.io/managed-by': FENCING_COMPONENT } },
    spec: { nodeName: node, ...spec },
  };
}

/** Go's longest time.Duration (2^63-1 ns, about 292 years): what Kubernetes itself parses. */
export const MAX_DURATION_MS = 9_223_372_036_854;

const duration = z
  .string()
  .regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'a duration such as "300s", "1m30s" or "500ms"')
  // longer, a time computed from it is past what a Date holds (the machine would throw on it)
  .refine((d) => durationMs(d) <= MAX_DURATION_MS, "a duration of at most 2562047h (Go's longest)");

/** An absolute count or a percentage, as Kubernetes' IntOrString ("40%" or 3). */
export const intOrPercent = z.union([
  z.number().int().min(0),
  z.string().regex(/^\d+%$/, 'a percentage such as "40%"'),
]);
export type IntOrPercent = z.infer<typeof intOrPercent>;

const labelSelector = z
  .object({
    matchLabels: z.record(z.string(), z.string()).nullish(),
    matchExpressions: z
      .array(z.object({ key: z.string(), operator: z.string(), values: z.array(z.string()).nullish() }))
      .nullish(),
  })
  .passthrough();

export const unhealthyCondition = z.object({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  duration,
});
export type UnhealthyCondition = z.infer<typeof unhealthyCondition>;

export const DEFAULT_UNHEALTHY: UnhealthyCondition[] = [
  { type: 'Ready', status: 'Unknown', duration: '300s' },
  { type: 'Ready', status: 'False', duration: '300s' },
];

const secretRef = z.object({
  /** Secret in the policy's credentials namespace */
  name: z.string().min(1),
  /** key in the Secret */
  key: z.string().min(1),
  /** the agent parameter it fills, e.g. "--password" */
  parameter: z.string().regex(/^--[a-z0-9-]+$/, 'a long option such as "--password"'),
});

export const agentSpec = z.discriminatedUnion('type', [
  /** the embedded cluster's BMCs through its infrastructure API */
  z.object({ type: z.literal('power'), action: z.enum(['off', 'reboot']).default('off') }),
  /** cut the node from its volumes (seed 000: firewall the storage server) */
  z.object({ type: z.literal('storage') }),
  /** any ClusterLabs fence_* agent, run as a subprocess */
  z.object({
    type: z.literal('exec'),
    /** agent name on PATH, e.g. fence_ipmilan */
    agent: z.string().regex(/^fence_[a-z0-9_]+$/, 'a ClusterLabs agent name such as "fence_ipmilan"'),
    action: z.enum(['off', 'reboot']).default('off'),
    /** passed for every node, e.g. {"--lanplus": "", "--username": "admin"} */
    sharedParameters: z.record(z.string(), z.string()).default({}),
    /** parameter -> node -> value, e.g. {"--ip": {"node-1": "127.0.0.1"}} (FAR's shape) */
    nodeParameters: z.record(z.string(), z.record(z.string(), z.string())).default({}),
    /** credentials from Secrets in credentialsNamespace */
    secretRefs: z.array(secretRef).default([]),
    credentialsNamespace: z.string().min(1).default('palisade-system'),
  }),
]);
export type AgentSpec = z.infer<typeof agentSpec>;

export const RELEASE_STRATEGIES = ['OutOfServiceTaint', 'ResourceDeletion'] as const;
export type ReleaseStrategy = (typeof RELEASE_STRATEGIES)[number];

/** The warning before an automatic fence when a policy does not say (issue 18: never silent). */
export const DEFAULT_WARNING_WINDOW = '10s';

export const fencePolicySpec = z
  .object({
    /** which nodes the policy covers (empty: all) */
    nodeSelector: labelSelector.default({}),
    unhealthyConditions: z.array(unhealthyCondition).min(1).default(DEFAULT_UNHEALTHY),
    /** also require the node's Lease not renewed for its leaseDurationSeconds */
    requireStaleLease: z.boolean().default(true),
    /** no fencing while fewer nodes than this are healthy (absolute or % of selected nodes) */
    minHealthy: intOrPercent.optional(),
    /** no fencing while more nodes than this are unhealthy */
    maxUnhealthy: intOrPercent.optional(),
    approval: z.enum(['Automatic', 'Manual']).default('Automatic'),
    agent: agentSpec,
    retryCount: z.number().int().min(1).max(100).default(3),
    retryInterval: duration.default('5s'),
    timeout: duration.default('60s'),
    releaseStrategy: z.enum(RELEASE_STRATEGIES).default('OutOfServiceTaint'),
    /**
     * how long an automatic fence is announced ("fenced in N s unless cancelled") before its agent
     * may run; "0s" turns the warning off. Manual policies show it too, and approval waits for it.
     */
    warningWindow: duration.default(DEFAULT_WARNING_WINDOW),
    /** a paused policy starts no new fence and holds Detected fences at the end of their window */
    paused: z.boolean().default(false),
  })
  .refine((s) => s.minHealthy === undefined || s.maxUnhealthy === undefined, {
    message: 'set minHealthy or maxUnhealthy, not both',
    path: ['maxUnhealthy'],
  });
export type FencePolicySpec = z.infer<typeof fencePolicySpec>;

export const PHASES = [
  'Detected',
  'AwaitingApproval',
  'Fencing',
  'Fenced',
  'Releasing',
  'Released',
  'Recovered',
  'Failed',
  'Cancelled',
] as const;
export type Phase = (typeof PHASES)[number];
export const TERMINAL_PHASES: ReadonlySet<Phase> = new Set(['Recovered', 'Failed', 'Cancelled']);

export const CONDITION_TYPES = ['Processing', 'FenceAgentActionSucceeded', 'Succeeded'] as const;

const condition = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string(),
  message: z.string().default(''),
  lastTransitionTime: z.string(),
});
export type FenceCondition = z.infer<typeof condition>;

export const ATTEMPT_RESULTS = ['Running', 'Succeeded', 'Failed', 'TimedOut', 'Interrupted'] as const;

export const attempt = z.object({
  number: z.number().int().min(1),
  startedAt: z.string(),
  finishedAt: z.string().nullish(),
  /** Interrupted: Palisade stopped while the agent ran, so its outcome is unknown (verify decides) */
  result: z.enum(ATTEMPT_RESULTS),
  exitCode: z.number().int().nullish(),
  /** the agent's output, trimmed, secrets redacted */
  output: z.string().default(''),
  /** the status query after the agent: an agent's "success" is believed only when this confirms it */
  verification: z
    .object({ at: z.string(), state: z.string(), confirmed: z.boolean(), detail: z.string().default('') })
    .nullish(),
});
export type Attempt = z.infer<typeof attempt>;

/** What a release step let go of, so the record names them after the Events expire. */
export const released = z.object({
  /** "namespace/name" of each pod force-deleted (or evicted by the taint) */
  pods: z.array(z.string()).default([]),
  /** VolumeAttachment names deleted (or detached by Kubernetes after the taint) */
  volumeAttachments: z.array(z.string()).default([]),
});
export type Released = z.infer<typeof released>;

export const step = z.object({
  phase: z.enum(PHASES),
  at: z.string(),
  message: z.string(),
  released: released.nullish(),
});
export type Step = z.infer<typeof step>;

export const nodeFenceSpec = z.object({
  nodeName: z.string().min(1),
  /** the FencePolicy that matched when the fence was created */
  policy: z.string().min(1),
  /** Manual policies: set by the approve action */
  approvedBy: z.string().nullish(),
  approvedAt: z.string().nullish(),
  /** set by the cancel action; honoured before the agent runs, refused after */
  cancelRequested: z.object({ by: z.string(), at: z.string(), reason: z.string().default('') }).nullish(),
  /**
   * set by the console's "Fence now": a person created this fence (the budget held the automatic
   * one, or it failed or was cancelled). The controller adopts it with no warning window.
   */
  requestedBy: z.object({ by: z.string(), at: z.string(), reason: z.string().default('') }).nullish(),
});
export type NodeFenceSpec = z.infer<typeof nodeFenceSpec>;

export const nodeFenceStatus = z.object({
  phase: z.enum(PHASES).default('Detected'),
  conditions: z.array(condition).default([]),
  attempts: z.array(attempt).default([]),
  steps: z.array(step).default([]),
  /** the Node's uid when detected: a node re-created under the same name is another node */
  nodeUid: z.string().nullish(),
  /** the node's bootID when detected: recovery needs a new one (the old processes are gone) */
  nodeBootId: z.string().nullish(),
  detectedAt: z.string().nullish(),
  /** detectedAt + the policy's warningWindow: no agent runs before it (Cancel works until then) */
  fenceAt: z.string().nullish(),
  fencedAt: z.string().nullish(),
  releasedAt: z.string().nullish(),
  recoveredAt: z.string().nullish(),
  message: z.string().default(''),
});
export type NodeFenceStatus = z.infer<typeof nodeFenceStatus>;

export interface Meta {
  name: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  /** e.g. who paused a FencePolicy (palisade.dev/paused-by) */
  annotations?: Record<string, string>;
}

export interface FencePolicy {
  metadata: Meta;
  spec: FencePolicySpec;
}

export interface NodeFence {
  metadata: Meta;
  spec: NodeFenceSpec;
  status: NodeFenceStatus;
}

function firstIssue(e: z.ZodError): string {
  const i = e.issues[0];
  return `${i.path.join('.') || '(root)'}: ${i.message}`;
}

const meta = z
  .object({
    name: z.string(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    creationTimestamp: z.union([z.string(), z.date()]).optional(),
    annotations: z.record(z.string(), z.string()).nullish(),
  })
  .passthrough();

function metaOf(m: z.infer<typeof meta>): Meta {
  const ts = m.creationTimestamp;
  return {
    name: m.name,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    creationTimestamp: ts instanceof Date ? ts.toISOString() : ts,
    ...(m.annotations ? { annotations: m.annotations } : {}),
  };
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseFencePolicy(o: unknown): Parsed<FencePolicy> {
  const r = z.object({ metadata: meta, spec: fencePolicySpec }).safeParse(o);
  if (!r.success) return { ok: false, error: firstIssue(r.error) };
  return { ok: true, value: { metadata: metaOf(r.data.metadata), spec: r.data.spec } };
}

export function parseNodeFence(o: unknown): Parsed<NodeFence> {
  const r = z
    .object({
      metadata: meta,
      spec: nodeFenceSpec,
      status: nodeFenceStatus.default(nodeFenceStatus.parse({})),
    })
    .safeParse(o);
  if (!r.success) return { ok: false, error: firstIssue(r.error) };
  return { ok: true, value: { metadata: metaOf(r.data.metadata), spec: r.data.spec, status: r.data.status } };
}

/** "1m30s" -> 90 000 ms (validated durations only) */
export function durationMs(d: string): number {
  let ms = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    const n = Number(m[1]);
    ms += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  return Math.round(ms);
}
