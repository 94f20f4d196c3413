// What a failed OIDC renewal means for the session. The provider refusing the grant
// (invalid_grant: revoked, expired, used twice) ends it at once. The provider being away — a
// refused connection, a timeout, a 5xx during a restart — must not end every session at once:
// the renewal is tried again, sooner first and then every 30 s at most, until the ID token
// itself expires; only then, still unrenewed, does the session end. Pure.
import type { OidcProblem } from './oidcErrors.js';

export type AfterFailure =
  | { end: true; why: 'refused' | 'expired' }
  /** try again at `at` (ms since the epoch) */
  | { end: false; at: number };

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** The wait before the n-th retry (n from 1): 1 s, 2 s, 4 s ... 30 s. */
export function retryDelayMs(n: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, n - 1));
}

/**
 * After the `failures`-th failed renewal in a row (from 1): end the session, or when to try
 * again — never later than the ID token's expiry, so the last try is made while it still holds.
 */
export function afterFailedRenewal(
  problem: OidcProblem,
  now: number,
  expiresAt: number | undefined,
  failures: number,
): AfterFailure {
  if (!problem.transient) return { end: true, why: 'refused' };
  if (expiresAt === undefined || now >= expiresAt) return { end: true, why: 'expired' };
  return { end: false, at: Math.min(now + retryDelayMs(failures), expiresAt) };
}
