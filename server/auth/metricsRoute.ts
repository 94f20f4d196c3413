// /metrics behind kube-rbac-proxy's convention: a bearer token that the cluster authenticates
// and authorises for `get` on the non-resource URL /metrics (asked with a SelfSubjectAccessReview
// sent with that token, so Palisade needs no privilege to ask). 401 without a token the
// cluster accepts (the gate and the token check), 403 with the cluster's own words otherwise.
// One page for protection's, the controller runtime's and sign-in's registries.
import type http from 'node:http';
import { Registry } from 'prom-client';
import type { ClusterConnection } from '../kube/connection.js';
import type { ProtectionService } from '../protection/service.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import { sendJson } from './http.js';
import type { Admitted, ConsoleAuth } from './service.js';

const METRICS = { verb: 'get', path: '/metrics' };

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
