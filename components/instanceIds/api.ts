'use client';
// The instance-ID procedures, typed from the server's router (type-only import).
import type { inferRouterOutputs } from '@trpc/server';
import type { InstanceIdsApi } from '@/server/trpc/instanceIds';
import { useTRPC } from '../console/trpc';

type Out = inferRouterOutputs<InstanceIdsApi>['instanceIds'];
export type InstanceIdList = Out['list'];
export type InstanceIdRowData = InstanceIdList['rows'][number];

/** The console's client (its app router mounts these procedures). */
export const useInstanceIdsTRPC = useTRPC;
