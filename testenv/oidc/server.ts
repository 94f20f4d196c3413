// The test identity provider on https://127.0.0.1:<port>: a throwaway CA made at start (its
// certificate written to <state>/ca.crt for kube-apiserver, NODE_EXTRA_CA_CERTS and the like),
// a serving certificate it signs for 127.0.0.1 and localhost, and oidc-provider behind it.
import { X509Certificate, createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import { type ClientSpec, type TokenLifetimes, createProvider } from './provider.js';
import { DEFAULT_USERS, type UserSpec, UserStore } from './users.js';

export interface IdentityProviderOptions {
  /** the clients (relying parties) that may sign people in; at least one */
  clients: ClientSpec[];
  /** default DEFAULT_USERS (alice, bob, carol) */
  users?: readonly UserSpec[];
  ttl?: TokenLifetimes;
  /** HTTPS port on 127.0.0.1 (default: a free one) */
  port?: number;
  /** folder for ca.crt (default: a temporary folder, removed by stop()) */
  state?: string;
  /**
   * the CA to sign the serving certificate with (default: a new one); give one to know the CA
   * before the provider runs, e.g. to start kube-apiserver first
   */
  ca?: CertificateAuthority;
  /** one line per sign-in, sign-out and error */
  log?: (msg: string) => void;
}

export interface IdentityProvider {
  /** https://127.0.0.1:<port>, as in the tokens' `iss` and the discovery document */
  issuer: string;
  port: number;
  /** <issuer>/.well-known/openid-configuration */
  discoveryUrl: string;
  /** the PEM of the CA that signed the serving certificate, and the file holding it */
  caPem: string;
  caFile: string;
  /**
   * base64 SHA-256 of the serving certificate's SubjectPublicKeyInfo, for Chromium's
   * --ignore-certificate-errors-spki-list (the CA's hash there is not enough: measured)
   */
  spkiHash: string;
  /** the Chromium flag that makes it accept this provider's certificate (see docs/oidc.md) */
  chromiumArgs: string[];
  state: string;
  users: string[];
  clients: string[];
  /**
   * An outage: stop listening and drop every connection (callers get "connection refused"),
   * keeping the provider's state (sessions, grants, refresh tokens) for resume()
   */
  suspend(): Promise<void>;
  /** listen on the same port again, where suspend() left off */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export function spkiHash(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

export async function startIdentityProvider(options: IdentityProviderOptions): Promise<IdentityProvider> {
  if (!options.clients?.length) throw new Error('startIdentityProvider: give at least one client');
  const log = options.log ?? (() => undefined);
  const ownState = !options.state;
  const state = options.state ?? (await mkdtemp(join(tmpdir(), 'palisade-idp-')));
  await mkdir(state, { recursive: true });

  const [ca, users] = await Promise.all([
    options.ca ?? createCertificateAuthority('palisade-test-idp-ca'),
    UserStore.create(options.users ?? DEFAULT_USERS),
  ]);
  const serving = await ca.issueServing('palisade-test-idp', ['127.0.0.1', 'localhost']);
  const caFile = join(state, 'ca.crt');
  await writeFile(caFile, ca.certPem);

  let handler: ((req: any, res: any) => void) | undefined;
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    if (handler) return handler(req, res);
    res.writeHead(503).end();
  });
  const stop = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    if (ownState) await rm(state, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as { port: number };
    const issuer = `https://127.0.0.1:${port}`;
    const provider = await createProvider({ issuer, users, clients: options.clients, ttl: options.ttl });
    provider.on('server_error', (_ctx, err) => log(`server error: ${err?.stack ?? err}`));
    const why = (err: any) =>
      [err?.message, err?.error_description, err?.error_detail].filter(Boolean).join(': ');
    provider.on('authorization.error', (_ctx, err) => log(`authorization error: ${why(err)}`));
    provider.on('grant.error', (_ctx, err) => log(`token endpoint error: ${why(err)}`));
    provider.on('authorization.success', (ctx) =>
      log(`code issued to ${ctx.oidc?.client?.clientId} for ${ctx.oidc?.session?.accountId}`),
    );
    provider.on('end_session.success', () => log('session ended'));
    handler = provider.callback();
    const leafSpki = spkiHash(serving.certPem);
    return {
      issuer,
      port,
      discoveryUrl: `${issuer}/.well-known/openid-configuration`,
      caPem: ca.certPem,
      caFile,
      spkiHash: leafSpki,
      chromiumArgs: [`--ignore-certificate-errors-spki-list=${leafSpki}`],
      state,
      users: users.usernames,
      clients: options.clients.map((c) => c.clientId),
      suspend: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
      resume: () =>
        new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
          });
        }),
      stop,
    };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
