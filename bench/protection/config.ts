// The storm bench's two sizes and its storm variants.
import type { StormConfig, StormVariant } from './stormPhase.js';

export interface Config {
  name: 'full' | 'quick';
  nodes: number;
  podsPerNode: number;
  storm: StormConfig;
  /** unprotected pods deleted with the webhook and as many without, after 5 warm-up pairs */
  unprotected: number;
  /** a third storm with the webhook's API client on a shared keep-alive agent */
  whatIfStorm: boolean;
  deadlineMs: number;
}

export const FULL: Config = {
  name: 'full',
  nodes: 20,
  podsPerNode: 200,
  storm: { pods: 1000, minAvailable: 900, deletes: 2000, clients: 64, readyTimeoutMs: 180_000 },
  unprotected: 500,
  // the webhook's status client keeps its connections alive since it has its own
  // (server/kube/keepAlive.ts): the what-if that measured it is now the storm itself
  whatIfStorm: false,
  deadlineMs: 12 * 60_000,
};

export const QUICK: Config = {
  name: 'quick',
  nodes: 8,
  podsPerNode: 100,
  storm: { pods: 200, minAvailable: 180, deletes: 400, clients: 64, readyTimeoutMs: 30_000 },
  unprotected: 50,
  whatIfStorm: false,
  deadlineMs: 2 * 60_000,
};

/** the storm order's seed: every run deletes in the same order */
export const SEED = 20_040;

export const VARIANTS: Record<'on' | 'off' | 'whatIf', StormVariant> = {
  on: { label: 'storm', ns: 'storm', batching: true, keepAlive: false },
  off: { label: 'storm, batching off', ns: 'storm-unbatched', batching: false, keepAlive: false },
  whatIf: {
    label: 'what-if: storm, webhook API client kept alive',
    ns: 'storm-keepalive',
    batching: true,
    keepAlive: true,
  },
};
