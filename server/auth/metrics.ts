// /metrics behind kube-rbac-proxy's convention: a bearer token that the cluster authenticates
// and authorises for `get` on the non-resource URL /metrics (asked with a SelfSubjectAccessReview
// sent with that token, so Palisade needs no privilege to ask). 401 without a token the
// cluster accepts (the gate and the token check), 403 with the cluster's own words otherwise.
import type http from 'node:http';
import type { ClusterConnection } from '../kube/connection.js';
import { Counter, Registry } from 'prom-client';
import type { ProtectionService } from '../protection/service.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import { sendJson } from './http.js';
import type { Admitted, ConsoleAuth } from './service.js';

const METRICS = { verb: 'get', path: '/metrics' };

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

export async function serveMetrics(
  auth: ConsoleAuth,
  protection: ProtectionService | undefined,
  runtime: ControllerRuntime | undefined,
  cluster: ClusterConnection | undefined,
  a: Admitted,
  res: http.ServerResponse,
) {
  if (!a.identity || !cluster)
    return sendJson(res, 401, { error: 'send a bearer token allowed to get /metrics' });
  const allowed = await auth.access.can(a.identity, cluster.id, METRICS);
  if (!allowed.allowed) return sendJson(res, 403, { error: allowed.message });
  // protection's and the controller runtime's (leader election, queues, reconciles) on one page
  const registries = [protection?.metrics.registry, runtime?.metrics.registry, auth.metrics.registry].filter(
    (r) => !!r,
  );
  const registry = registries.length === 1 ? registries[0] : Registry.merge(registries);
  res.setHeader('cache-control', 'no-store');
  const text = await registry.metrics();
  res.writeHead(200, {
    'content-type': registry.contentType,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
