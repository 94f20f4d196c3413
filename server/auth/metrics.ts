// The request gate's and sign-in's Prometheus counters; metricsRoute.ts serves them.
import { Counter, Registry } from 'prom-client';

/** The sign-in paths: a bearer token on any route, a pasted token, the one-time link, OIDC. */
export type AuthMethod = 'bearer' | 'token' | 'link' | 'oidc';

/** The request gate's and sign-in's own counters (one registry per console, as the runtime's). */
export function authMetrics() {
  const registry = new Registry();
  const r = [registry];
  return {
    registry,
    attempts: new Counter({
      name: 'palisade_auth_attempts_total',
      help: 'Authentication attempts by way in (bearer, token, link, oidc) and outcome (ok, failed, rate-limited); a bearer token already checked is not counted again',
      labelNames: ['method', 'outcome'] as const,
      registers: r,
    }),
    rateLimited: new Counter({
      name: 'palisade_auth_rate_limited_total',
      help: 'Requests refused with 429 by limit (signin, client-failures, token-failures, user, mutations)',
      labelNames: ['limit'] as const,
      registers: r,
    }),
    refused: new Counter({
      name: 'palisade_gate_refused_total',
      help: 'Requests the gate refused before they reached the API, by reason (cookie-conflict, socket-not-yours, body-too-large, method-not-allowed)',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    oidcRenewals: new Counter({
      name: 'palisade_oidc_renewals_total',
      help: 'OIDC session renewals by outcome (renewed, retrying: the provider was unreachable, ended: it refused or the token expired) and cause (invalid-grant, connection-refused, tls, timeout, dns, http, other)',
      labelNames: ['outcome', 'cause'] as const,
      registers: r,
    }),
  };
}

export type AuthMetrics = ReturnType<typeof authMetrics>;
