'use client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from './router-type';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
