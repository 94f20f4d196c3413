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
      queries: {
        refetchOnWindowFocus: false,
        // a refusal (401, 403, 404) is an answer, shown as it is: asking again changes nothing
        retry: (count, error) => count < 1 && !refused(error),
        staleTime: 5_000,
      },
    },
  });
  configureLiveQueries(qc);
  return qc;
}

function refused(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } } | undefined)?.data?.httpStatus;
  return status === 401 || status === 403 || status === 404;
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
            // the gate says why when the session has just ended (its timeout, a sign-out elsewhere)
            if (r.status === 401)
              goToSignIn(
                await r
                  .clone()
                  .json()
                  .then((b: { ended?: unknown }) => (typeof b?.ended === 'string' ? b.ended : undefined))
                  .catch(() => undefined),
              );
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
