import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './cli.js';

describe('test identity provider command line', () => {
  it('takes one client, users and lifetimes from flags', () => {
    expect(
      parseCommandLine([
        '--port',
        '9443',
        '--state',
        '/tmp/idp',
        '--client-id',
        'palisade',
        '--client-secret',
        's3cret',
        '--redirect-uri',
        'http://127.0.0.1:3000/auth/oidc/callback',
        '--redirect-uri',
        'http://localhost:3000/auth/oidc/callback',
        '--token-auth-method',
        'client_secret_post',
        '--user',
        'dave:pw:ops,dev',
        '--user',
        'erin:pw2',
        '--id-token-ttl',
        '30',
        '--refresh-token-ttl',
        '600',
      ]),
    ).toEqual({
      port: 9443,
      state: '/tmp/idp',
      clients: [
        {
          clientId: 'palisade',
          clientSecret: 's3cret',
          redirectUris: [
            'http://127.0.0.1:3000/auth/oidc/callback',
            'http://localhost:3000/auth/oidc/callback',
          ],
          tokenEndpointAuthMethod: 'client_secret_post',
        },
      ],
      users: [
        { username: 'dave', password: 'pw', groups: ['ops', 'dev'] },
        { username: 'erin', password: 'pw2', groups: [] },
      ],
      ttl: { idToken: 30, refreshToken: 600 },
    });
  });

  it('refuses a line without a client, with a bad number or an unknown flag', () => {
    expect(() => parseCommandLine([])).toThrow(/no client/);
    expect(() => parseCommandLine(['--client-id', 'x', '--port', 'abc'])).toThrow(/whole number/);
    expect(() => parseCommandLine(['--client-id', 'x', '--user', 'nopassword'])).toThrow(/NAME:PASSWORD/);
    expect(() => parseCommandLine(['--client-id', 'x', '--token-auth-method', 'none'])).toThrow(
      /client_secret/,
    );
    expect(() => parseCommandLine(['--client-id', 'x', '--bogus'])).toThrow();
  });
});
