'use client';
// The volumes procedures, typed from the server's router (type-only import). The paths are
// those of the console's appRouter once it lists `volumes`; typed through VolumesApi so this
// page compiles whether or not router.ts has been wired yet.
import type { inferRouterOutputs } from '@trpc/server';
import type { TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { VolumesApi } from '@/server/trpc/volumes';
import { useTRPC } from '../console/trpc';

type Out = inferRouterOutputs<VolumesApi>['volumes'];
export type VolumeList = Out['list'];
export type VolumeDetailData = Out['get'];
export type VolumeRow = VolumeList['rows'][number];
export type Attachment = VolumeRow['attachments'][number];
export type Waiter = VolumeRow['waiters'][number];
export type User = VolumeRow['users'][number];
export type Writer = NonNullable<VolumeRow['writers']>[number];

export function useVolumesTRPC(): TRPCOptionsProxy<VolumesApi> {
  return useTRPC() as unknown as TRPCOptionsProxy<VolumesApi>;
}
