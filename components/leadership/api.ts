'use client';
// The leadership procedure, typed from the server's router (type-only import).
import type { inferRouterOutputs } from '@trpc/server';
import type { LeadershipApi } from '@/server/trpc/leadership';
import { useTRPC } from '../console/trpc';

type Out = inferRouterOutputs<LeadershipApi>['leadership'];
export type LeadershipState = Out['state'];
export type ElectedState = Extract<LeadershipState, { elected: true }>;

/** The console's client (its app router mounts these procedures). */
export const useLeadershipTRPC = useTRPC;
