'use client';
// actions.* for the UI: the console's client (the app router mounts actionsRouter as `actions`);
// the input and output types come from the actions router, type-only (nothing from server/
// reaches the browser bundle).
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { ActionsAppRouter } from '@/server/trpc/actions';
import { useTRPC } from '../console/trpc';

export function useActionsApi() {
  return useTRPC().actions;
}

type Outputs = inferRouterOutputs<ActionsAppRouter>['actions'];
type Inputs = inferRouterInputs<ActionsAppRouter>['actions'];

export type Preview = Outputs['preview'];
export type Performed = Outputs['perform'];
export type AuditRow = Outputs['audit'][number];
export type AuditQuery = Inputs['audit'];
/** one action's target, as preview takes it */
export type ActionTarget = Inputs['preview'];
