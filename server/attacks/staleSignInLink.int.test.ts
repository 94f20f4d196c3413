// Attack (issue 23, 6): a one-time sign-in link that never expires. The link `npm start` prints
// signs a browser in as the kubeconfig's own user; copied into a chat, a ticket or a shell
// history and never used, it stayed a way in for as long as Palisade ran. Now a link works once
// and only for its lifetime (15 minutes by default); an expired one signs nobody in, is counted
// as a failed attempt, and prints a fresh link to the terminal that started Palisade.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { Console } from '../console.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { cookiesOf, rawRequest } from './harness.js';

const TTL_MS = 5_000;
let h: ClusterAndConsole;
let c: Console;
const printed: string[] = [];

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'attack-link',
    rack: 'l1',
    count: 1,
    console: { auth: { signInLink: true, signInLinkTtlMs: TTL_MS }, announce: (l) => printed.push(l) },
  });
  c = h.console;
}, 120_000);

afterAll(() => h?.stop());

const follow = (url: string) => {
  const u = new URL(url);
  return rawRequest(c.port, 'GET', u.pathname + u.search, { host: `127.0.0.1:${c.port}` });
};

describe('the one-time sign-in link', () => {
  it('signs nobody in once it has expired, and a fresh one is printed', async () => {
    const link = c.auth.link!;
    const url = link.url;
    const expiresAt = link.expiresAt;
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(TTL_MS);
    await eventually(() => Date.now() > expiresAt, 'the link has expired', 10_000);
    const before = printed.length;
    const r = await follow(url);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/signin?error=link-expired');
    expect(cookiesOf(r.headers).some((x) => x.startsWith('palisade_session_'))).toBe(false);
    expect(printed.length).toBe(before + 1);
    expect(printed.at(-1)).toMatch(
      /^The one-time sign-in link had expired; a new one: http:\/\/127\.0\.0\.1:\d+\/auth\/link\?token=/,
    );
  });

  it('a fresh one works within its lifetime, once', async () => {
    const url = c.auth.link!.url;
    const r = await follow(url);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/');
    expect(cookiesOf(r.headers).some((x) => x.startsWith('palisade_session_'))).toBe(true);
    const again = await follow(url);
    expect(again.headers.location).toBe('/signin?error=link');
  });
});
