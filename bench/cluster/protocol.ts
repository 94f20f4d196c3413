// Messages between bench/cluster/run.ts (parent) and bench/cluster/child.ts (the
// embedded cluster), over the fork IPC channel.

/** What the child sees of its own cluster, once a second. */
export interface Sample {
  /** wall clock (ms since epoch); parent and child share the machine's clock */
  at: number;
  nodes: { registered: number; ready: number; unknown: number; notReady: number };
  /** distinct nodes that went from Ready=True to anything else since the start */
  nodesLostReady: number;
  pods: { total: number; scheduled: number; running: number; ready: number };
  /** processes running in the infrastructure's ground truth (the real data plane) */
  processes: number;
  /** keys waiting in the kubelet fleet's shared work queue (ready + delayed) */
  fleetQueue: number;
  rss: number;
  heapUsed: number;
  /** event-loop delay over the last interval, from perf_hooks.monitorEventLoopDelay */
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

export interface Final {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** kernel high-water mark of the resident set, from getrusage */
  maxRss: number;
  heapLimit: number;
  gcForced: boolean;
  gcMs: number;
}

export type ChildMessage =
  | { type: 'log'; at: number; msg: string }
  | { type: 'api'; at: number; kubeconfigPath: string; startAt: number; target: Target }
  | { type: 'started'; at: number }
  | { type: 'sample'; sample: Sample }
  | { type: 'final'; final: Final }
  | { type: 'profiled'; label: string; path: string }
  | { type: 'error'; message: string };

export type ParentMessage =
  | { type: 'final' }
  | { type: 'profile'; label: string; ms: number }
  | { type: 'exit' };

export interface Target {
  scenario: string;
  nodes: number;
  pods: number;
  leaseRenewIntervalMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeStatusUpdateMs: number;
}

/** One variant of bench/cluster/client-cost.ts: Lease renewals through client-node. */
export interface ClientCost {
  variant: string;
  requests: number;
  perSec: number;
  /** CPU of the whole process (client and server ends) per request */
  cpuMsPerRequest: number;
}
