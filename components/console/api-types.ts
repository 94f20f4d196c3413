// Shapes of the tRPC procedures the console calls (see server/trpc/router.ts). Used by the
// interim AppRouter stub in router-type.ts; the pages read the looser parts (conditions,
// container statuses, claims) through the normalizers in components/pod, so a slightly
// different server shape still renders.
import type { ClusterHealth, NodeView, PodView } from '@/lib/console/protocol';

export type ClusterMode = 'normal' | 'read-only' | 'protected';

export interface ClusterSummary {
  id: string;
  context: string;
  embedded: boolean;
  mode: ClusterMode;
  health: ClusterHealth;
  /** who the person is on this cluster (null: not signed in there) */
  user?: { name: string; groups: string[] } | null;
}

export interface NodeDetail {
  node: NodeView;
  pods: PodView[];
}

export interface PodEvent {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastTimestamp?: number | string;
}

export interface PodStep {
  step: string;
  at: number;
  detail?: string;
}

export interface PodDetail {
  pod: PodView;
  conditions: unknown;
  containerStatuses: unknown;
  claims: unknown;
  events: PodEvent[];
  steps?: PodStep[];
}

/** the fault verbs infra.act takes: the server's own list, type-only */
export type { ConsoleVerb as InfraVerb } from '@/server/kube/infra';
