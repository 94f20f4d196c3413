'use client';
// actions.* for the UI, typed against the actions router alone (type-only: nothing from server/
// reaches the browser bundle). The paths are those of the app router once it mounts
// actionsRouter as `actions`, so this is the same client as useTRPC(), seen through a narrower type.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { ActionsAppRouter } from '@/server/trpc/actions';
import { useTRPC } from '../console/trpc';

type Api = TRPCOptionsProxy<ActionsAppRouter>['actions'];

export function useActionsApi(): Api {
  return (useTRPC() as unknown as TRPCOptionsProxy<ActionsAppRouter>).actions;
}

type Outputs = inferRouterOutputs<ActionsAppRouter>['actions'];
type Inputs = inferRouterInputs<ActionsAppRouter>['actions'];

export type Preview = Outputs['preview'];
export type Performed = Outputs['perform'];
export type AuditRow = Outputs['audit'][number];
export type AuditQuery = Inputs['audit'];
/** one action's target, as preview takes it */
export type ActionTarget = Inputs['preview'];
