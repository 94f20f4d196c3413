import { describe, expect, it } from 'vitest';
import { describeOidcError } from './oidcErrors.js';
import { afterFailedRenewal, retryDelayMs } from './oidcRenewal.js';

/** openid-client's own wrapping: ClientError("something went wrong", { cause }) */
const wrapped = (cause: unknown) => Object.assign(new Error('something went wrong'), { cause });
const sys = (code: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...extra });

describe('describeOidcError: the cause, named', () => {
  it.each([
    [
      'a refused connection (Node fetch)',
      wrapped(
        Object.assign(new TypeError('fetch failed'), {
          cause: sys('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:4444', {
            address: '127.0.0.1',
            port: 4444,
          }),
        }),
      ),
      { cause: 'connection-refused', words: 'connection refused (127.0.0.1:4444)', transient: true },
    ],
    [
      'a refused connection on both address families (AggregateError)',
      wrapped(
        Object.assign(
          new AggregateError([
            sys('ECONNREFUSED', 'connect ECONNREFUSED ::1:4444', { address: '::1', port: 4444 }),
          ]),
          {
            code: 'ECONNREFUSED',
          },
        ),
      ),
      { cause: 'connection-refused', transient: true },
    ],
    [
      'a certificate Node does not trust',
      wrapped(sys('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain')),
      {
        cause: 'tls',
        words: 'TLS: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)',
        transient: true,
      },
    ],
    [
      'a certificate for another name',
      wrapped(sys('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")),
      { cause: 'tls' },
    ],
    [
      'invalid_grant from the token endpoint',
      Object.assign(new Error('server responded with an error in the response body'), {
        error: 'invalid_grant',
        error_description: 'grant request is invalid',
        status: 400,
      }),
      { cause: 'invalid-grant', words: 'invalid_grant: grant request is invalid', transient: false },
    ],
    [
      'invalid_client',
      Object.assign(new Error('x'), { error: 'invalid_client', status: 401 }),
      { cause: 'provider-error', words: 'invalid_client', transient: false },
    ],
    [
      'temporarily_unavailable',
      Object.assign(new Error('x'), { error: 'temporarily_unavailable' }),
      { cause: 'provider-error', transient: true },
    ],
    [
      'a DNS failure',
      wrapped(sys('ENOTFOUND', 'getaddrinfo ENOTFOUND idp.example', { hostname: 'idp.example' })),
      { cause: 'dns', words: 'the name does not resolve (idp.example)' },
    ],
    [
      'a timeout',
      Object.assign(new Error('operation timed out'), { code: 'OAUTH_TIMEOUT' }),
      { cause: 'timeout', transient: true },
    ],
    ['a reset', wrapped(sys('ECONNRESET', 'socket hang up')), { cause: 'connection-reset', transient: true }],
    [
      'a 503 from a proxy in front of the provider',
      Object.assign(new Error('unexpected HTTP response status code'), {
        code: 'OAUTH_RESPONSE_IS_NOT_CONFORM',
        cause: { status: 503 },
      }),
      { cause: 'http', words: 'the provider answered HTTP 503', transient: true },
    ],
    [
      'a 404 (wrong issuer path)',
      Object.assign(new Error('unexpected HTTP response status code'), { cause: { status: 404 } }),
      { cause: 'http', transient: false },
    ],
    [
      'anything else: the deepest message, not "something went wrong"',
      wrapped(new Error('the ID token was signed by an unknown key')),
      { cause: 'other', words: 'the ID token was signed by an unknown key', transient: false },
    ],
  ])('%s', (_what, e, want) => expect(describeOidcError(e)).toMatchObject(want));
});

describe('afterFailedRenewal', () => {
  const away = describeOidcError(sys('ECONNREFUSED', 'x'));
  const refused = describeOidcError({ error: 'invalid_grant' });

  it('the provider refusing the grant ends the session at once', () =>
    expect(afterFailedRenewal(refused, 1000, 60_000, 1)).toEqual({ end: true, why: 'refused' }));

  it('the provider away: try again, sooner first, never past the token’s expiry', () => {
    expect(afterFailedRenewal(away, 1000, 60_000, 1)).toEqual({ end: false, at: 2000 });
    expect(afterFailedRenewal(away, 1000, 60_000, 3)).toEqual({ end: false, at: 5000 });
    expect(afterFailedRenewal(away, 1000, 60_000, 20)).toEqual({ end: false, at: 31_000 });
    expect(afterFailedRenewal(away, 50_000, 60_000, 20)).toEqual({ end: false, at: 60_000 });
  });

  it('still away when the token expires: the session ends', () => {
    expect(afterFailedRenewal(away, 60_000, 60_000, 9)).toEqual({ end: true, why: 'expired' });
    expect(afterFailedRenewal(away, 1000, undefined, 1)).toEqual({ end: true, why: 'expired' });
  });

  it('backs off to 30 s', () =>
    expect([1, 2, 3, 6, 7, 50].map(retryDelayMs)).toEqual([1000, 2000, 4000, 30_000, 30_000, 30_000]));
});
