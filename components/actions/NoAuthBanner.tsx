'use client';
// The console runs without authentication (--insecure-no-auth, or a read-only console on a
// non-loopback address): say so on every page, where nobody can miss it.
import { useQuery } from '@tanstack/react-query';
import { useActionsApi } from './api';

export function NoAuthBanner() {
  const api = useActionsApi();
  const security = useQuery({ ...api.security.queryOptions(), staleTime: Number.POSITIVE_INFINITY });
  const banner = security.data?.banner;
  if (!banner) return null;
  return (
    <div
      role="alert"
      data-testid="no-auth-banner"
      className="border-b border-crit bg-crit px-3 py-1.5 text-sm font-semibold text-white"
    >
      {banner}
    </div>
  );
}
