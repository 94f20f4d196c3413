'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { type ReactNode, useState } from 'react';
import { ClusterProvider } from './cluster';
import { GroundTruthProvider } from './groundTruth';
import { configureLiveQueries, LiveProvider } from './live';
import type { AppRouter } from './router-type';
import { TRPCProvider } from './trpc';

function makeQueryClient(): QueryClient {
  const qc = new QueryClient({
    defaultOptions: {
      queries: { refetchOnWindowFocus: false, retry: 1, staleTime: 5_000 },
    },
  });
  configureLiveQueries(qc);
  return qc;
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: '/api/trpc' })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <ClusterProvider>
          <LiveProvider>
            <GroundTruthProvider>{children}</GroundTruthProvider>
          </LiveProvider>
        </ClusterProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
