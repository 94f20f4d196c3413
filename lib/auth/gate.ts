// The request gate's rules: every request to the console (pages, tRPC, socket.io, /metrics,
// sign-in) is judged here before anything reads its body or any data. Pure: the server's
// adapter (server/auth/gate.ts) feeds it the request's headers and what credential it
// carries, and turns the verdict into a response.
//
// Why each rule:
// - Host: a page on a domain that resolves to 127.0.0.1 (DNS rebinding) reaches the console
//   with its own name in Host; only names the console knows are answered. Reads of /healthz and
//   /readyz excepted: the kubelet probes them with the pod's IP in Host, and they carry no data;
//   so is /metrics read with a bearer token (Prometheus scrapes the pod's IP).
// - Origin: a state-changing request or a socket.io handshake from another site carries that
//   site's Origin; it is refused. A request authenticated by the session cookie must carry our
//   own Origin when it changes state (browsers always send Origin on non-GET requests), so a
//   cookie alone never authorises a change. A script with `Authorization: Bearer` and no Origin
//   is fine: a browser cannot add that header cross-site without a CORS preflight we never allow.
// - Content type: tRPC accepts FormData and octet-stream inputs, which an HTML form or a
//   no-cors fetch can send cross-site without a preflight; only JSON is accepted.
// - Bodies: each route takes a body of at most its own size (BODY_LIMITS), judged from
//   Content-Length before a byte is read (a chunked body is cut off by the reader at the same
//   size); routes that take none (pages, sign-in, assets, health, /metrics) answer reads only.
// - Credentials: nothing but sign-in, its assets and the health endpoints answers without a
//   session or a bearer token. /metrics and the instance-ID endpoint (/instance-ids/*, called
//   by pods with their ServiceAccount token) take a bearer token only, never a session.
import { hostAllowed, type HostRules, originIsOwn, ownOrigins } from './hosts.js';

export type Route =
  | 'health'
  | 'auth'
  | 'signin'
  | 'asset'
  | 'trpc'
  | 'socket'
  | 'metrics'
  | 'instance-ids'
  | 'page';

export type Credential = 'session' | 'bearer' | 'none';

export interface GateRequest {
  method: string;
  /** the path without the query */
  path: string;
  /** the query, with its "?", kept for the sign-in redirect */
  search?: string;
  host?: string;
  origin?: string;
  /** Sec-Fetch-Site, when the browser sent it */
  fetchSite?: string;
  contentType?: string;
  /** a WebSocket upgrade */
  upgrade?: boolean;
  /** Content-Length, when the request sent one (a number; NaN when it is not one) */
  contentLength?: number;
  credential: Credential;
}

export type RefusalCode =
  | 'host_not_allowed'
  | 'origin_not_allowed'
  | 'origin_required'
  | 'cross_site'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'body_too_large'
  | 'unauthenticated';

export type GateVerdict =
  | { ok: true; route: Route }
  | { ok: false; route: Route; status: 401 | 403 | 405 | 413 | 415; code: RefusalCode; message: string }
  | { ok: false; route: Route; status: 302; code: 'signin_required'; location: string };

export const TRPC_PREFIX = '/api/trpc';
export const SOCKET_PREFIX = '/socket.io';
export const SIGNIN_PATH = '/signin';
/** the instance-ID endpoint pods call (lib/instanceIds/types.ts names its paths) */
export const INSTANCE_IDS_PREFIX = '/instance-ids';

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** Static files the sign-in page needs before anyone is signed in. */
const PUBLIC_FILES = new Set(['/favicon.svg', '/favicon.ico', '/robots.txt']);

export function routeOf(path: string): Route {
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (under(path, '/auth')) return 'auth';
  if (path === SIGNIN_PATH) return 'signin';
  if (under(path, '/_next/static') || PUBLIC_FILES.has(path)) return 'asset';
  if (under(path, TRPC_PREFIX)) return 'trpc';
  if (under(path, SOCKET_PREFIX)) return 'socket';
  if (path === '/metrics') return 'metrics';
  // the endpoint's paths are below the prefix; /instance-ids itself is the console's page
  if (path.startsWith(`${INSTANCE_IDS_PREFIX}/`)) return 'instance-ids';
  return 'page';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The largest body each route reads, in bytes; 0: none (reads only). tRPC inputs are small
 * (the largest, access.actions, is 50 targets); socket.io's polling transport posts its packets.
 */
export const BODY_LIMITS: Record<Route, number> = {
  trpc: 256 * 1024,
  socket: 64 * 1024,
  auth: 64 * 1024,
  'instance-ids': 4 * 1024,
  health: 0,
  signin: 0,
  asset: 0,
  page: 0,
  metrics: 0,
};

/** Methods, and a declared body, the route takes; a refusal when not. */
function judgeBody(r: GateRequest, route: Route): GateVerdict | undefined {
  const limit = BODY_LIMITS[route];
  if (limit === 0 && !['GET', 'HEAD'].includes(r.method.toUpperCase()) && !r.upgrade)
    return refuse(route, 405, 'method_not_allowed', `${r.method} is not answered here: only GET and HEAD`);
  if (r.contentLength !== undefined && !(r.contentLength <= limit))
    return refuse(
      route,
      413,
      'body_too_large',
      limit === 0
        ? 'this path takes no request body'
        : `the request body is larger than ${limit} bytes, the most this path takes`,
    );
  return undefined;
}

function refuse(
  route: Route,
  status: 401 | 403 | 405 | 413 | 415,
  code: RefusalCode,
  message: string,
): GateVerdict {
  return { ok: false, route, status, code, message };
}

/** Host and Origin: the checks every route gets (the health endpoints' reads excepted). */
function judgeSite(r: GateRequest, route: Route, rules: HostRules): GateVerdict | undefined {
  if (!hostAllowed(r.host, rules))
    return refuse(
      route,
      403,
      'host_not_allowed',
      `Host "${r.host ?? ''}" is not one of this console's names (loopback on port ${rules.port}, or server.allowedHosts / server.publicURL in palisade.yaml)`,
    );
  const changes = !SAFE_METHODS.has(r.method.toUpperCase());
  const handshake = route === 'socket' || r.upgrade === true;
  if (r.origin !== undefined && (changes || handshake) && !originIsOwn(r.origin, ownOrigins(r.host, rules)))
    return refuse(route, 403, 'origin_not_allowed', `Origin "${r.origin}" is not this console`);
  // a browser that says the request is cross-site: no API or socket answers it
  if (r.fetchSite === 'cross-site' && (route === 'trpc' || route === 'socket' || route === 'auth') && changes)
    return refuse(route, 403, 'cross_site', 'cross-site requests are not accepted');
  if (r.credential === 'session' && changes && r.origin === undefined)
    return refuse(
      route,
      403,
      'origin_required',
      'a request signed in by the session cookie must carry this console as its Origin',
    );
  return undefined;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

export function judgeRequest(r: GateRequest, rules: HostRules): GateVerdict {
  const route = routeOf(r.path);
  // the kubelet probes /healthz and /readyz with Host <pod IP>:<port>, a name no one configures;
  // they carry no data and change nothing, so a read of them answers whatever the Host
  if (route === 'health' && SAFE_METHODS.has(r.method.toUpperCase())) return { ok: true, route };
  // Prometheus scrapes /metrics at the pod's IP too; a bearer token is the only credential it
  // takes, and no rebinding page can add one cross-site (that needs a preflight we never allow)
  if (route === 'metrics' && r.credential === 'bearer' && SAFE_METHODS.has(r.method.toUpperCase()))
    return { ok: true, route };
  const site = judgeSite(r, route, rules);
  if (site) return site;
  const body = judgeBody(r, route);
  if (body) return body;
  if (route === 'trpc' && !SAFE_METHODS.has(r.method.toUpperCase()) && !JSON_TYPE.test(r.contentType ?? ''))
    return refuse(
      route,
      415,
      'unsupported_media_type',
      `the API accepts only application/json request bodies, not "${r.contentType ?? '(none)'}"`,
    );
  if (route === 'health' || route === 'auth' || route === 'signin' || route === 'asset')
    return { ok: true, route };
  // /metrics takes a bearer token the cluster authorises (kube-rbac-proxy's convention)
  if (route === 'metrics')
    return r.credential === 'bearer'
      ? { ok: true, route }
      : refuse(route, 401, 'unauthenticated', 'send a bearer token allowed to get /metrics');
  // a pod's ServiceAccount token, checked by the endpoint itself (a TokenReview): no session
  if (route === 'instance-ids')
    return r.credential === 'bearer'
      ? { ok: true, route }
      : refuse(
          route,
          401,
          'unauthenticated',
          "send the pod's ServiceAccount token as Authorization: Bearer <token> (a session is not accepted here)",
        );
  if (r.credential !== 'none') return { ok: true, route };
  if (route === 'page')
    return {
      ok: false,
      route,
      status: 302,
      code: 'signin_required',
      location: `${SIGNIN_PATH}?next=${encodeURIComponent(r.path + (r.search ?? ''))}`,
    };
  return refuse(route, 401, 'unauthenticated', 'sign in first, or send Authorization: Bearer <token>');
}
