'use client';
// Deletion protection as the map, the lists and the pod page need it: which protectors
// guard which pod of a cluster, and how the protectors stand. Both come from tRPC and stay
// fresh through the protection feed; React Query's structural sharing keeps the same
// objects while nothing changed, so memoized tiles do not re-render for nothing.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  type PodProtectorIndex,
  type ProtectionSummary,
  summarizeProtectors,
} from '@/lib/console/ui/protection';
import { useTRPC } from '../console/trpc';
import { useProtectionLive } from './live';
import type { ProtectorRow } from './types';

export interface PodProtection {
  enabled: boolean;
  /** "ns/pod" -> protector keys, for the given cluster */
  index: PodProtectorIndex;
  /** protector key -> its row (counts and state) */
  protectors: ReadonlyMap<string, ProtectorRow>;
  summary: ProtectionSummary;
}

const EMPTY_INDEX: PodProtectorIndex = new Map();

export function usePodProtection(cluster: string | undefined): PodProtection {
  const trpc = useTRPC();
  useProtectionLive();
  const list = useQuery(trpc.protection.list.queryOptions());
  const podIndex = useQuery({
    ...trpc.protection.podIndex.queryOptions({ cluster: cluster ?? '' }),
    enabled: !!cluster && list.data?.enabled === true,
  });
  const rows = list.data?.enabled ? list.data.protectors : undefined;
  const protectors = useMemo(() => new Map((rows ?? []).map((r) => [r.key, r])), [rows]);
  const summary = useMemo(() => summarizeProtectors(rows ?? []), [rows]);
  const index = useMemo(
    () => (podIndex.data ? new Map(Object.entries(podIndex.data)) : EMPTY_INDEX),
    [podIndex.data],
  );
  return { enabled: list.data?.enabled === true, index, protectors, summary };
}

/** /protectors/<ns>/<name> for a protector key "ns/name" */
export function protectorHref(key: string): string {
  const [ns, name] = key.split('/');
  return `/protectors/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
}
