'use client';
// May the signed-in person do this? Asked of the server (which asks the cluster) so that an
// action they may not take is shown disabled with the reason before they try. Requests from
// one render batch into one HTTP call (tRPC's batch link); answers are kept for a short time.
import { useQuery } from '@tanstack/react-query';
import type { AccessTarget } from '@/server/trpc/access';
import { useTRPC } from '../console/trpc';

/** the server's own schema of what may be asked (server/trpc/access.ts), type-only */
export type MayTarget = AccessTarget;

export interface May {
  /** undefined while asking */
  allowed: boolean | undefined;
  /** "you (viewer) may not delete pods "x" in shop" */
  reason?: string;
  /** the cluster's own 403 text */
  message?: string;
}

export function useMay(cluster: string | undefined, target: MayTarget): May {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.access.actions.queryOptions({ cluster: cluster ?? '', targets: [target] }),
    // a target still being filled in (a list with no first row yet: node "") is not asked: the
    // server refuses it (400), and the browser logs that as an error
    enabled: !!cluster && Object.values(target).every((v) => v !== ''),
    staleTime: 10_000,
  });
  const a = q.data?.[0];
  if (!a) return { allowed: undefined };
  return a;
}
