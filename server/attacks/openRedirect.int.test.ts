// Attack (issue 23, 6): an open redirect after sign-in. `/signin?next=%2F%09%2Fevil.example%2F`
// passed a prefix check ("/" but not "//"), and browsers drop the tab: "/\t/evil.example/" is
// "//evil.example/", another site, where a look-alike page asks for the password again. The
// OIDC flow carried `next` through the provider to its callback with the same check. Now every
// `next` is URL-parsed and must stay on the console's origin (lib/auth/redirect.ts, shared by
// the sign-in page); the callback checks it again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OidcRig, startOidcRig } from './oidcRig.js';

let rig: OidcRig;

beforeAll(async () => {
  rig = await startOidcRig({ name: 'attack-redirect' });
}, 120_000);

afterAll(() => rig?.stop());

/** Where a browser at the console ends up when sent to `location` (as Chromium resolves it). */
const landsOn = (location: string) =>
  new URL(location.replace(/[\t\n\r]/g, '').replace(/\\/g, '/'), `http://127.0.0.1:${rig.port}/`).origin;

describe('no redirect leaves the console after sign-in', () => {
  it.each([
    '/%09/evil.example/',
    '/\t/evil.example/',
    '//evil.example/',
    '/\\evil.example/',
    'https://evil.example/',
    '/.//evil.example/',
  ])('OIDC sign-in with next=%j comes back to this console', async (next) => {
    // what the sign-in page passes on: the query's value, decoded once
    const { callback } = await rig.signIn(
      await rig.browser(),
      'alice',
      'alice-correct-horse',
      decodeURIComponent(next),
    );
    expect(callback.status).toBe(302);
    expect(landsOn(callback.headers.location!)).toBe(`http://127.0.0.1:${rig.port}`);
    expect(callback.headers.location!.startsWith('//')).toBe(false);
  });

  it('a path of the console is kept, query and all', async () => {
    const { callback } = await rig.signIn(
      await rig.browser(),
      'alice',
      'alice-correct-horse',
      '/nodes/o1-1?cluster=x',
    );
    expect(callback.headers.location).toBe('/nodes/o1-1?cluster=x');
  });
});
