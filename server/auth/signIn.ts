// The console's ways to sign in besides a token and the one-time link: OpenID Connect, when
// palisade.yaml configures it (its routes under /auth/oidc, its sign-out at the provider, and the
// renewal of its sessions' tokens, which stop with the console).
import type { OidcConfig } from '../config/schema.js';
import { component, type Logger } from '../log.js';
import { OidcSignIn } from './oidc.js';
import type { SignInOptions } from './routes.js';
import type { ConsoleAuth } from './service.js';

export function consoleSignIn(o: {
  oidc?: OidcConfig;
  /** the embedded cluster's demo tokens file: the sign-in page names it (no demo users elsewhere) */
  demoTokens?: string;
  auth: ConsoleAuth;
  /** the address people reach the console by (the provider redirects back to it) */
  publicUrl: () => string;
  logger: Logger;
}): { signIn: SignInOptions; stop(): void } {
  const demo = o.demoTokens ? { demoTokens: o.demoTokens } : {};
  if (!o.oidc) return { signIn: demo, stop: () => undefined };
  const oidc = new OidcSignIn(o.oidc, o.auth, o.publicUrl, component('oidc', {}, o.logger));
  return {
    signIn: {
      ...demo,
      oidc: { issuer: oidc.issuer, start: '/auth/oidc/start' },
      extra: (req, res, a, path) => oidc.route(req, res, a, path),
      endSession: (current, all) => oidc.signOut(current, all),
    },
    stop: () => oidc.stop(),
  };
}
