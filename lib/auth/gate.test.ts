import { describe, expect, it } from 'vitest';
import { BODY_LIMITS, type GateRequest, judgeRequest, routeOf } from './gate.js';
import { hostAllowed, type HostRules, originIsOwn, ownOrigins, parseHost } from './hosts.js';

const rules: HostRules = {
  port: 34567,
  allowed: ['palisade.internal', 'ops.example.com:8443', '*.corp.example'],
};
const req = (r: Partial<GateRequest>): GateRequest => ({
  method: 'GET',
  path: '/',
  host: '127.0.0.1:34567',
  credential: 'session',
  ...r,
});

describe('parseHost', () => {
  it.each([
    ['127.0.0.1:34567', { name: '127.0.0.1', port: 34567 }],
    ['LocalHost:80', { name: 'localhost', port: 80 }],
    ['[::1]:34567', { name: '[::1]', port: 34567 }],
    ['example.com.', { name: 'example.com' }],
    ['example.com:0', undefined],
    ['example.com:99999', undefined],
    ['a b', undefined],
    ['', undefined],
    ['evil.com@127.0.0.1', undefined],
  ])('%s', (h, want) => expect(parseHost(h)).toEqual(want));
});

describe('hostAllowed', () => {
  it.each([
    ['127.0.0.1:34567', true],
    ['localhost:34567', true],
    ['[::1]:34567', true],
    ['127.0.0.1:3000', false],
    ['127.0.0.1', false],
    ['rebind.attacker.example:34567', false],
    ['palisade.internal', true],
    ['palisade.internal:9999', true],
    ['ops.example.com:8443', true],
    ['ops.example.com', false],
    ['a.corp.example:443', true],
    ['corp.example', false],
    ['evilcorp.example', false],
    ['*.corp.example', false],
    [undefined, false],
  ])('%s -> %s', (h, want) => expect(hostAllowed(h, rules)).toBe(want));

  it('allows the public URL host on its port', () => {
    const r = { ...rules, publicURL: 'https://palisade.example.com' };
    expect(hostAllowed('palisade.example.com', r)).toBe(true);
    expect(hostAllowed('palisade.example.com:443', r)).toBe(true);
    expect(hostAllowed('palisade.example.com:8080', r)).toBe(false);
  });
});

describe('origins', () => {
  it.each([
    ['http://127.0.0.1:34567', true],
    ['https://127.0.0.1:34567', true],
    ['http://127.0.0.1:34568', false],
    ['http://localhost:34567', false],
    ['https://evil.example', false],
    ['null', false],
    ['file://', false],
  ])('%s own for Host 127.0.0.1:34567: %s', (o, want) =>
    expect(originIsOwn(o, ownOrigins('127.0.0.1:34567', {}))).toBe(want),
  );
  it('takes the public URL as its own', () =>
    expect(
      originIsOwn(
        'https://palisade.example.com',
        ownOrigins('palisade.example.com', { publicURL: 'https://palisade.example.com/' }),
      ),
    ).toBe(true));
});

describe('routeOf', () => {
  it.each([
    ['/healthz', 'health'],
    ['/readyz', 'health'],
    ['/auth/token', 'auth'],
    ['/signin', 'signin'],
    ['/_next/static/chunks/a.js', 'asset'],
    ['/favicon.svg', 'asset'],
    ['/api/trpc/infra.act', 'trpc'],
    ['/socket.io/', 'socket'],
    ['/metrics', 'metrics'],
    ['/instance-ids/acquire', 'instance-ids'],
    ['/instance-ids/release', 'instance-ids'],
    ['/instance-ids', 'page'],
    ['/instance-idsx', 'page'],
    ['/nodes', 'page'],
    ['/authx', 'page'],
    ['/api/trpcx', 'page'],
  ])('%s -> %s', (p, want) => expect(routeOf(p)).toBe(want));
});

describe('judgeRequest', () => {
  const cases: [string, Partial<GateRequest>, number | 'ok', string?][] = [
    // the DNS rebinding attack of issue 15
    [
      'rebinding: foreign Host with a matching Origin',
      {
        method: 'POST',
        path: '/api/trpc/infra.act',
        host: 'rebind.attacker.example:34567',
        origin: 'http://rebind.attacker.example:34567',
        contentType: 'application/json',
        credential: 'none',
      },
      403,
      'host_not_allowed',
    ],
    // the kubelet's probes: Host is the pod's IP, which no one lists in allowedHosts
    ['/healthz probed with the pod IP in Host', { path: '/healthz', host: '10.244.1.7:3000' }, 'ok'],
    ['/readyz probed with the pod IP in Host', { path: '/readyz', host: '10.244.1.7:3000' }, 'ok'],
    ['HEAD /readyz with no Host at all', { method: 'HEAD', path: '/readyz', host: undefined }, 'ok'],
    [
      'a POST to /healthz from a foreign Host',
      { method: 'POST', path: '/healthz', host: 'evil.example:34567' },
      403,
      'host_not_allowed',
    ],
    [
      'foreign Host on /metrics, no token',
      { path: '/metrics', host: '10.244.1.7:3000' },
      403,
      'host_not_allowed',
    ],
    // Prometheus scrapes the pod's IP with its bearer token
    [
      '/metrics scraped at the pod IP with a token',
      { path: '/metrics', host: '10.244.1.7:3000', credential: 'bearer' },
      'ok',
    ],
    [
      'a POST to /metrics from a foreign Host with a token',
      { method: 'POST', path: '/metrics', host: '10.244.1.7:3000', credential: 'bearer' },
      403,
      'host_not_allowed',
    ],
    [
      'foreign Host on a path below /healthz',
      { path: '/healthz/x', host: 'evil.example:34567' },
      403,
      'host_not_allowed',
    ],
    ['no Host at all', { host: undefined }, 403, 'host_not_allowed'],
    // cross-site WebSocket of issue 15
    [
      'socket.io polling handshake from another site',
      { path: '/socket.io/', origin: 'https://evil.example', credential: 'none' },
      403,
      'origin_not_allowed',
    ],
    [
      'WebSocket upgrade from another site, even signed in',
      { path: '/socket.io/', origin: 'https://evil.example', upgrade: true },
      403,
      'origin_not_allowed',
    ],
    ['socket.io handshake from our page', { path: '/socket.io/', origin: 'http://127.0.0.1:34567' }, 'ok'],
    ['socket.io polling GET without Origin (same-origin XHR)', { path: '/socket.io/' }, 'ok'],
    ['socket.io without a session', { path: '/socket.io/', credential: 'none' }, 401, 'unauthenticated'],
    [
      'a mutation signed in by cookie with our Origin',
      {
        method: 'POST',
        path: '/api/trpc/x',
        origin: 'http://127.0.0.1:34567',
        contentType: 'application/json',
      },
      'ok',
    ],
    [
      'a mutation signed in by cookie without Origin',
      { method: 'POST', path: '/api/trpc/x', contentType: 'application/json' },
      403,
      'origin_required',
    ],
    [
      'a script with a bearer token and no Origin',
      { method: 'POST', path: '/api/trpc/x', contentType: 'application/json', credential: 'bearer' },
      'ok',
    ],
    [
      'a bearer token from another site',
      {
        method: 'POST',
        path: '/api/trpc/x',
        contentType: 'application/json',
        credential: 'bearer',
        origin: 'https://evil.example',
      },
      403,
      'origin_not_allowed',
    ],
    [
      'a form post to tRPC',
      {
        method: 'POST',
        path: '/api/trpc/x',
        contentType: 'multipart/form-data; boundary=x',
        origin: 'http://127.0.0.1:34567',
      },
      415,
      'unsupported_media_type',
    ],
    [
      'octet-stream to tRPC',
      { method: 'POST', path: '/api/trpc/x', contentType: 'application/octet-stream', credential: 'bearer' },
      415,
      'unsupported_media_type',
    ],
    [
      'text/plain to tRPC',
      { method: 'POST', path: '/api/trpc/x', contentType: 'text/plain', credential: 'bearer' },
      415,
      'unsupported_media_type',
    ],
    [
      'tRPC query without credentials',
      { path: '/api/trpc/clusters.list', credential: 'none' },
      401,
      'unauthenticated',
    ],
    ['tRPC query signed in', { path: '/api/trpc/clusters.list' }, 'ok'],
    [
      'a page without a session',
      { path: '/nodes', search: '?q=a', credential: 'none' },
      302,
      'signin_required',
    ],
    ['the sign-in page', { path: '/signin', credential: 'none' }, 'ok'],
    ['an asset', { path: '/_next/static/x.js', credential: 'none' }, 'ok'],
    ['/readyz', { path: '/readyz', credential: 'none' }, 'ok'],
    ['/metrics without a token', { path: '/metrics', credential: 'none' }, 401, 'unauthenticated'],
    ['/metrics with a session only', { path: '/metrics' }, 401, 'unauthenticated'],
    ['/metrics with a bearer token', { path: '/metrics', credential: 'bearer' }, 'ok'],
    [
      "a pod's acquire with its token",
      {
        method: 'POST',
        path: '/instance-ids/acquire',
        contentType: 'application/json',
        credential: 'bearer',
      },
      'ok',
    ],
    [
      'an acquire on a session (a browser page) is not taken',
      { method: 'POST', path: '/instance-ids/acquire', origin: 'http://127.0.0.1:34567' },
      401,
      'unauthenticated',
    ],
    [
      'an acquire with no credential',
      { method: 'POST', path: '/instance-ids/release', credential: 'none' },
      401,
      'unauthenticated',
    ],
    [
      'an acquire posted from another site',
      { method: 'POST', path: '/instance-ids/acquire', origin: 'https://evil.example', credential: 'bearer' },
      403,
      'origin_not_allowed',
    ],
    [
      'sign-in post from another site',
      { method: 'POST', path: '/auth/token', origin: 'https://evil.example', credential: 'none' },
      403,
      'origin_not_allowed',
    ],
    [
      'a browser saying cross-site',
      {
        method: 'POST',
        path: '/auth/token',
        fetchSite: 'cross-site',
        origin: 'http://127.0.0.1:34567',
        credential: 'none',
      },
      403,
      'cross_site',
    ],
    [
      'Origin "null" (sandboxed frame) on a mutation',
      { method: 'POST', path: '/auth/signout', origin: 'null' },
      403,
      'origin_not_allowed',
    ],
  ];
  it.each(cases)('%s', (_name, r, status, code) => {
    const v = judgeRequest(req(r), rules);
    if (status === 'ok') expect(v).toEqual({ ok: true, route: routeOf(req(r).path) });
    else expect(v).toMatchObject({ ok: false, status, code });
  });

  it('sends a page to sign-in with where it came from', () => {
    const v = judgeRequest(req({ path: '/nodes', search: '?q=a b', credential: 'none' }), rules);
    expect(v).toMatchObject({ location: '/signin?next=%2Fnodes%3Fq%3Da%20b' });
  });
});

describe('bodies and methods per route', () => {
  const own = { origin: 'http://127.0.0.1:34567', contentType: 'application/json' };
  it.each<[string, Partial<GateRequest>, number | 'ok', string?]>([
    [
      'a tRPC body within its limit',
      { ...own, method: 'POST', path: '/api/trpc/infra.act', contentLength: BODY_LIMITS.trpc },
      'ok',
    ],
    [
      'a tRPC body one byte over',
      { ...own, method: 'POST', path: '/api/trpc/infra.act', contentLength: BODY_LIMITS.trpc + 1 },
      413,
      'body_too_large',
    ],
    [
      '100 MB to tRPC',
      { ...own, method: 'POST', path: '/api/trpc/infra.act', contentLength: 100 * 1024 * 1024 },
      413,
      'body_too_large',
    ],
    [
      'a Content-Length that is no number',
      { ...own, method: 'POST', path: '/api/trpc/infra.act', contentLength: Number.NaN },
      413,
      'body_too_large',
    ],
    [
      'a sign-in body over 64 KiB',
      { ...own, method: 'POST', path: '/auth/token', credential: 'none', contentLength: 64 * 1024 + 1 },
      413,
      'body_too_large',
    ],
    [
      'a socket.io poll within its limit',
      { ...own, method: 'POST', path: '/socket.io/', contentLength: 1000 },
      'ok',
    ],
    [
      'a socket.io poll over it',
      { ...own, method: 'POST', path: '/socket.io/', contentLength: BODY_LIMITS.socket + 1 },
      413,
      'body_too_large',
    ],
    ['a POST to a page', { ...own, method: 'POST', path: '/nodes' }, 405, 'method_not_allowed'],
    [
      'a PUT to the sign-in page',
      { ...own, method: 'PUT', path: '/signin', credential: 'none' },
      405,
      'method_not_allowed',
    ],
    ['a body on a page read', { path: '/nodes', contentLength: 10 }, 413, 'body_too_large'],
    ['an empty body on a page read', { path: '/nodes', contentLength: 0 }, 'ok'],
    ['OPTIONS on a page', { method: 'OPTIONS', path: '/nodes' }, 405, 'method_not_allowed'],
    [
      'a POST to /metrics',
      { ...own, method: 'POST', path: '/metrics', credential: 'bearer' },
      405,
      'method_not_allowed',
    ],
    ['a WebSocket upgrade (a GET)', { path: '/socket.io/', upgrade: true, origin: own.origin }, 'ok'],
    [
      'a foreign Host is refused first, whatever the body',
      { ...own, host: 'evil.example', method: 'POST', path: '/api/trpc/x', contentLength: 1e9 },
      403,
      'host_not_allowed',
    ],
  ])('%s', (_name, r, status, code) => {
    const v = judgeRequest(req(r), rules);
    if (status === 'ok') expect(v).toMatchObject({ ok: true });
    else expect(v).toMatchObject({ ok: false, status, code });
  });
});
