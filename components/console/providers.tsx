'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { type ReactNode, useState } from 'react';
import { goToSignIn } from '../auth/session';
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
    createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: '/api/trpc',
          // the session ended (timeout, sign-out elsewhere): back to sign-in, then here again
          fetch: async (url, init) => {
            const r = await fetch(url, init);
            if (r.status === 401) goToSignIn();
            return r;
          },
        }),
      ],
    }),
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
