'use client';
// The volumes procedures, typed from the server's router (type-only import). The paths are
// those of the console's appRouter, which mounts `volumes`.
import type { inferRouterOutputs } from '@trpc/server';
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

/** The console's client: the app router mounts `volumes`, so no narrower view is needed. */
export function useVolumesTRPC() {
  return useTRPC();
}
