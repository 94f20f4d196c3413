// main.ts's command line and ready line, apart from the process plumbing (pure, tested).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ClientSpec, TokenLifetimes } from './provider.js';
import type { IdentityProvider } from './server.js';
import type { UserSpec } from './users.js';

export const USAGE = `usage: tsx testenv/oidc/main.ts [options]
  --port N                   HTTPS port on 127.0.0.1 (default: a free one)
  --state DIR                folder for ca.crt (default: a temporary one, removed at exit)
  --config FILE              JSON: { "clients": [ClientSpec], "users": [UserSpec], "ttl": TokenLifetimes }
  --client-id ID             one client (with --client-secret and --redirect-uri)
  --client-secret SECRET
  --redirect-uri URI         repeatable
  --post-logout-redirect-uri URI  repeatable (default: each redirect URI's origin + /)
  --token-auth-method M      client_secret_basic (default) or client_secret_post
  --user NAME:PASSWORD[:GROUP,GROUP]  repeatable (default: alice, bob, carol)
  --id-token-ttl S, --access-token-ttl S, --refresh-token-ttl S, --session-ttl S  (seconds)`;

/** what main.ts prints when it serves */
export interface ReadyLine {
  issuer: string;
  port: number;
  discoveryUrl: string;
  caFile: string;
  spkiHash: string;
  chromiumArgs: string[];
  state: string;
  users: string[];
  clients: string[];
  pid: number;
}

export interface MainConfig {
  port?: number;
  state?: string;
  clients: ClientSpec[];
  users?: UserSpec[];
  ttl?: TokenLifetimes;
}

/** the command line as startIdentityProvider's options (pure; throws on a bad line) */
export function parseCommandLine(argv: string[]): MainConfig {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      state: { type: 'string' },
      config: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      'token-auth-method': { type: 'string' },
      user: { type: 'string', multiple: true },
      'id-token-ttl': { type: 'string' },
      'access-token-ttl': { type: 'string' },
      'refresh-token-ttl': { type: 'string' },
      'session-ttl': { type: 'string' },
    },
  });
  const fromFile: Partial<MainConfig> = values.config ? JSON.parse(readFileSync(values.config, 'utf8')) : {};
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new Error(`--${name} takes a whole number, not ${v}`);
    return Number(v);
  };
  const clients = [...(fromFile.clients ?? [])];
  if (values['client-id']) {
    const method = values['token-auth-method'];
    if (method && method !== 'client_secret_basic' && method !== 'client_secret_post')
      throw new Error(`--token-auth-method: client_secret_basic or client_secret_post, not ${method}`);
    clients.push({
      clientId: values['client-id'],
      clientSecret: values['client-secret'] ?? '',
      redirectUris: values['redirect-uri'] ?? [],
      ...(values['post-logout-redirect-uri']
        ? { postLogoutRedirectUris: values['post-logout-redirect-uri'] }
        : {}),
      ...(method ? { tokenEndpointAuthMethod: method as ClientSpec['tokenEndpointAuthMethod'] } : {}),
    });
  }
  if (!clients.length)
    throw new Error('no client: give --client-id, --client-secret and --redirect-uri, or --config');
  const users = values.user?.map((u): UserSpec => {
    const m = /^([^:]+):([^:]+)(?::(.*))?$/.exec(u);
    if (!m) throw new Error(`--user NAME:PASSWORD[:GROUP,GROUP], not ${u}`);
    return { username: m[1], password: m[2], groups: m[3] ? m[3].split(',').filter(Boolean) : [] };
  });
  const ttl: TokenLifetimes = { ...fromFile.ttl };
  const set = (key: keyof TokenLifetimes, flag: string) => {
    const v = int(flag, values[flag as keyof typeof values] as string | undefined);
    if (v !== undefined) ttl[key] = v;
  };
  set('idToken', 'id-token-ttl');
  set('accessToken', 'access-token-ttl');
  set('refreshToken', 'refresh-token-ttl');
  set('session', 'session-ttl');
  return {
    port: int('port', values.port) ?? fromFile.port,
    state: values.state ?? fromFile.state,
    clients,
    users: users ?? fromFile.users,
    ttl,
  };
}

export function readyLine(idp: IdentityProvider): ReadyLine {
  const { issuer, port, discoveryUrl, caFile, spkiHash, chromiumArgs, state, users, clients } = idp;
  return {
    issuer,
    port,
    discoveryUrl,
    caFile,
    spkiHash,
    chromiumArgs,
    state,
    users,
    clients,
    pid: process.pid,
  };
}
