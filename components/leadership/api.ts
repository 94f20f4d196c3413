'use client';
// The leadership procedure, typed from the server's router (type-only import).
import type { inferRouterOutputs } from '@trpc/server';
import type { TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { LeadershipApi } from '@/server/trpc/leadership';
import { useTRPC } from '../console/trpc';

type Out = inferRouterOutputs<LeadershipApi>['leadership'];
export type LeadershipState = Out['state'];
export type ElectedState = Extract<LeadershipState, { elected: true }>;

export function useLeadershipTRPC(): TRPCOptionsProxy<LeadershipApi> {
  return useTRPC() as unknown as TRPCOptionsProxy<LeadershipApi>;
}
