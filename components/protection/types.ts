// The protection procedures' outputs, typed from the server's router (type-only import).
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../console/router-type';

type Out = inferRouterOutputs<AppRouter>['protection'];
export type ProtectionList = Out['list'];
export type EnabledList = Extract<ProtectionList, { enabled: true }>;
export type ProtectorRow = EnabledList['protectors'][number];
export type ProtectorDetailData = Out['get'];
export type HistoryPoint = ProtectorDetailData['history'][number];
export type Decision = ProtectorDetailData['decisions'][number];
export type CellRow = ProtectorRow['cells'][number];
