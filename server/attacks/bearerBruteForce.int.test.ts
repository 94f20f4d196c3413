// Attack (issue 23, 6): guessing bearer tokens. `Authorization: Bearer` on the API was never
// rate-limited (50 guesses in 1.9 s, each costing the cluster a SelfSubjectReview) and a failed
// attempt left no trace. Now failures are limited per client and per token on every way in
// (a bearer header, a pasted token), answered 429 with Retry-After once over the limit without
// asking the cluster, logged (who, from where, why, the token only by its hash's first
// characters) and counted in /metrics; a token already known good is never held up.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { Console } from '../console.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { captureLogs } from '../test/logCapture.js';
import { tokenOf } from '../test/client.js';
import { DEFAULT_LIMITS } from '../auth/limits.js';
import { rawRequest } from './harness.js';

const logs = captureLogs('info');
let h: ClusterAndConsole;
let c: Console;
let admin: string;
const LIMIT = 10;

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'attack-bearer',
    rack: 'b1',
    count: 1,
    console: {
      logger: logs.logger,
      // the proxy in front (the test's own address) says who the client is
      auth: {
        trustedProxies: ['127.0.0.1'],
        limits: { ...DEFAULT_LIMITS, failuresPerMinute: LIMIT, failuresPerTokenPerMinute: 5 },
      },
    },
  });
  c = h.console;
  admin = tokenOf(h.cluster.kc);
}, 120_000);

afterAll(() => h?.stop());

const api = (token: string, from: string) =>
  rawRequest(c.port, 'GET', '/api/trpc/clusters.list', {
    host: `127.0.0.1:${c.port}`,
    authorization: `Bearer ${token}`,
    'x-forwarded-for': from,
  });

const metric = async (name: string, labels: string) => {
  const text = await c.auth.metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
};

describe('guessing bearer tokens', () => {
  it('is refused with 429 after a few failures from one client, and each failure is logged and counted', async () => {
    // a good token seen before the attack keeps working from the same client throughout
    expect((await api(admin, '198.51.100.9')).status).toBe(200);
    const answers: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 50; i++)
      answers.push((await api(`guess-${i}-${'x'.repeat(20)}`, '198.51.100.9')).status);
    expect(answers.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    expect(answers.slice(LIMIT)).toEqual(Array(50 - LIMIT).fill(429));
    // refusals over the limit are answered at once: no review is sent for them
    expect(Date.now() - started).toBeLessThan(30_000);
    const limited = await api('guess-again-xxxxxxxxxxxxxxxxxxxxx', '198.51.100.9');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(limited.body)).toMatchObject({ code: 'rate_limited' });
    // the good token, already checked, is not held up by its client's failures
    expect((await api(admin, '198.51.100.9')).status).toBe(200);
    // another client is not held up either
    expect((await api('another-guess-xxxxxxxxxxxxxxxxx', '198.51.100.10')).status).toBe(401);

    const failed = logs.of('auth', 'authentication failed');
    expect(failed.length).toBeGreaterThanOrEqual(LIMIT);
    expect(failed[0]).toMatchObject({ method: 'bearer', client: '198.51.100.9' });
    expect(String(failed[0].fingerprint)).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(logs.lines.join('\n')).not.toContain('guess-0-');
    expect(logs.of('auth', 'rate limited').length).toBeGreaterThanOrEqual(1);
    await eventually(
      async () =>
        (await metric('palisade_auth_attempts_total', 'method="bearer",outcome="failed"')) >= LIMIT + 1,
      'failures counted',
    );
    expect(
      await metric('palisade_auth_attempts_total', 'method="bearer",outcome="rate-limited"'),
    ).toBeGreaterThanOrEqual(40);
    expect(
      await metric('palisade_auth_rate_limited_total', 'limit="client-failures"'),
    ).toBeGreaterThanOrEqual(40);
  });

  it('one token tried from many clients is refused once it failed too often', async () => {
    const token = `stolen-but-revoked-${'y'.repeat(20)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await api(token, `203.0.113.${i + 1}`)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
  });

  it('pasting tokens at sign-in counts the same way', async () => {
    const signIn = (token: string) =>
      rawRequest(
        c.port,
        'POST',
        '/auth/token',
        {
          host: `127.0.0.1:${c.port}`,
          origin: `http://127.0.0.1:${c.port}`,
          'content-type': 'application/json',
          'x-forwarded-for': '192.0.2.44',
        },
        JSON.stringify({ token }),
      );
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++) statuses.push((await signIn(`pasted-${i}-${'z'.repeat(20)}`)).status);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429]);
    // the real user of that address waits too, but is told for how long
    const r = await signIn(admin);
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body).error).toMatch(
      /too many failed sign-in attempts from this address: try again in \d+ s/,
    );
  });

  it('the instance-ID endpoint (pods’ tokens, each checked by a TokenReview) counts the same way', async () => {
    const acquire = (i: number) =>
      rawRequest(
        c.port,
        'POST',
        '/instance-ids/acquire',
        {
          host: `127.0.0.1:${c.port}`,
          authorization: `Bearer pod-guess-${i}-${'p'.repeat(20)}`,
          'content-type': 'application/json',
          'x-forwarded-for': '192.0.2.99',
        },
        JSON.stringify({ namespace: 'default', pod: 'web-0' }),
      );
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await acquire(i)).status);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    expect(statuses.slice(LIMIT)).toEqual([429, 429]);
  });

  it('a ServiceAccount token (a real credential) still works from a fresh client', async () => {
    const core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: 'default',
      name: 'default',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } },
    });
    expect((await api(tr.status!.token, '198.51.100.77')).status).toBe(200);
  });
});
