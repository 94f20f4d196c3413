// The two duration profiles the MTTR bench runs under, and the scenario and FencePolicy each
// uses. "real" is Kubernetes' own defaults (sim's realDurations); "scaled" is every control-plane
// timer of "real" divided by 20, so a scaled figure x 20 predicts the Kubernetes part of the real
// one (Palisade's own latencies, API round trips and its 1 s release recheck, do not scale).

export interface Profile {
  name: 'scaled' | 'real';
  label: string;
  /** scenario `durations:` block */
  durations: Record<string, string | boolean>;
  /** the Automatic policy's Ready=Unknown duration (the Lease must be stale as well) */
  unhealthyFor: string;
  /** kubelet Lease renewal: the partition lands at a random point of one renewal interval */
  renewMs: number;
  /** the longest controller period (pod GC): the workload's node boots at a random point of one */
  spreadMs: number;
  /** the plain cluster is watched this long after the partition (nobody recovers it sooner) */
  plainWindowMs: number;
  /** a Palisade repetition gives up after this long */
  palisadeCapMs: number;
}

/** Kubernetes' defaults: node-monitor grace 40 s, Lease 40 s renewed every 10 s, 300 s tolerations. */
const REAL: Profile = {
  name: 'real',
  label: 'real defaults',
  durations: {
    nodeMonitorGracePeriod: '40s',
    nodeMonitorPeriod: '5s',
    leaseDuration: '40s',
    leaseRenewInterval: '10s',
    nodeStatusUpdate: '10s',
    defaultToleration: '300s',
    forceDetachTimeout: '6m',
    forceDetach: true,
    podGcInterval: '20s',
    containerStart: '1s',
    podReadyDelay: '2s',
    attachDelay: '500ms',
  },
  // one node-monitor period past Ready=Unknown; the stale Lease (40 s) is required too
  unhealthyFor: '5s',
  renewMs: 10_000,
  spreadMs: 20_000,
  // grace 40 s + toleration 300 s + force detach 360 s + a minute to start and be seen
  plainWindowMs: 760_000,
  palisadeCapMs: 180_000,
};

const SCALED: Profile = {
  name: 'scaled',
  label: 'scaled 1/20',
  durations: {
    nodeMonitorGracePeriod: '2s',
    nodeMonitorPeriod: '250ms',
    leaseDuration: '2s',
    leaseRenewInterval: '500ms',
    nodeStatusUpdate: '500ms',
    defaultToleration: '15s',
    forceDetachTimeout: '18s',
    forceDetach: true,
    podGcInterval: '1s',
    containerStart: '50ms',
    podReadyDelay: '100ms',
    attachDelay: '25ms',
  },
  unhealthyFor: '250ms',
  renewMs: 500,
  spreadMs: 1_000,
  plainWindowMs: 45_000,
  palisadeCapMs: 30_000,
};

export const PROFILES = { scaled: SCALED, real: REAL };

export const NS = 'shop';
export const STS = 'db';

/**
 * A small cluster; its workload (the StatefulSet) is created by the case on a node booted later
 * (`nodes` + 1 in all); the plain case adds Deployments.
 */
export function scenarioYaml(p: Profile, nodes: number): string {
  const durations = Object.entries(p.durations)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  return `
name: mttr-${p.name}
durations:
${durations}
nodes:
  cpu: "4"
  memory: 16Gi
  zones:
    - name: zone-a
      racks: [{ name: a1, count: ${nodes} }]
storageClasses:
  - name: san-rwo
    bindingMode: WaitForFirstConsumer
workloads:
  - kind: StatefulSet
    name: ${STS}
    namespace: ${NS}
    replicas: 1
    volume: { storageClass: san-rwo, size: 1Gi, accessMode: ReadWriteOnce }
`;
}

export type Release = 'OutOfServiceTaint' | 'ResourceDeletion';

/** A variant of the policy, run beside it at real defaults as a comparison. */
export interface PolicyVariant {
  release?: Release;
  unhealthyFor?: string;
  /** the budget (0: every automatic fence is held) */
  maxUnhealthy?: number;
  /** a person uses Fence now as soon as the budget holds the node's fence */
  byHand?: boolean;
}

/** Issue 9's Automatic policy: built-in power agent, out-of-service taint release (or a variant). */
export const automaticPolicy = (p: Profile, v: PolicyVariant = {}) => ({
  unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: v.unhealthyFor ?? p.unhealthyFor }],
  requireStaleLease: true,
  approval: 'Automatic',
  agent: { type: 'power', action: 'off' },
  retryCount: 3,
  retryInterval: '5s',
  timeout: '30s',
  releaseStrategy: v.release ?? 'OutOfServiceTaint',
  ...(v.maxUnhealthy !== undefined ? { maxUnhealthy: v.maxUnhealthy } : {}),
  // the machinery's MTTR: a warning window (default 10 s, issue 18) adds exactly itself to it,
  // between detected and fenced, and is the site's choice, so the bench leaves it out
  warningWindow: '0s',
});
