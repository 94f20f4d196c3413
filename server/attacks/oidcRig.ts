// The OIDC attack tests' rig: the test tier's identity provider (testenv/oidc), a small cluster
// that binds its groups (on the real control plane kube-apiserver trusts the provider too), and
// a console signing people in through it; a browser of the tests' own (a cookie jar per person)
// that follows the provider's pages as Chromium would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { backendFromEnv, type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { tinyDurations } from '../../sim/test/clusterHarness.js';
import {
  type IdentityProvider,
  OidcTestClient,
  startIdentityProvider,
  type TokenLifetimes,
} from '../../testenv/oidc/index.js';
import type { OidcConfig } from '../config/schema.js';
import { type Console, type ConsoleOptions, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { freePort, type RawAnswer, rawRequest } from '../test/consoleHarness.js';
import { cookiesOf } from './harness.js';

export const CLIENT = { clientId: 'palisade', clientSecret: 'oidc-test-secret' };

export interface OidcRig {
  idp: IdentityProvider;
  cluster: EmbeddedCluster;
  console: Console;
  port: number;
  dir: string;
  /** auth.oidc as the console has it (for a second console) */
  oidc: OidcConfig;
  get(path: string, headers?: Record<string, string>, method?: string, body?: string): Promise<RawAnswer>;
  /** a new browser: its own cookie jar at the provider */
  browser(): Promise<OidcTestClient>;
  /** a browser's round trip through /auth/oidc/start, the provider's form and the callback */
  signIn(
    browser: OidcTestClient,
    user: string,
    password: string,
    next?: string,
  ): Promise<{ cookie: string; callback: RawAnswer }>;
  stop(): Promise<void>;
}

export async function startOidcRig(o: {
  name: string;
  ttl?: TokenLifetimes;
  console?: Partial<Omit<ConsoleOptions, 'clusters'>>;
}): Promise<OidcRig> {
  const dir = await mkdtemp(join(tmpdir(), `palisade-${o.name}-`));
  const port = await freePort();
  const redirectUri = `http://127.0.0.1:${port}/auth/oidc/callback`;
  const idp = await startIdentityProvider({
    clients: [{ ...CLIENT, redirectUris: [redirectUri] }],
    ttl: o.ttl,
  });
  const cluster = await startEmbeddedCluster({
    scenario: parseScenario(
      `name: ${o.name}\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-o, racks: [{ name: o1, count: 1 }] }]\nworkloads: []\n`,
      o.name,
    ),
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
    authentication: {
      jwt: [{ issuer: idp.issuer, audiences: [CLIENT.clientId], certificateAuthority: idp.caPem }],
    },
  });
  await cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api).createClusterRoleBinding({
    body: {
      metadata: { name: `${o.name}-operators` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'palisade-operator' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'oidc:palisade-operators' }],
    },
  });
  const oidc: OidcConfig = {
    issuer: idp.issuer,
    clientID: CLIENT.clientId,
    clientSecret: CLIENT.clientSecret,
    usernameClaim: 'preferred_username',
    groupsClaim: 'groups',
    usernamePrefix: 'oidc:',
    groupsPrefix: 'oidc:',
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    caFile: idp.caFile,
  };
  const c = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    port,
    ui: false,
    fencing: false,
    ...o.console,
    auth: { oidc, ...o.console?.auth },
  });
  await Promise.all([...c.clusters.values()].map((x) => x.synced()));
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) =>
    rawRequest(
      port,
      method,
      path,
      { host: `127.0.0.1:${port}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body,
    );
  return {
    idp,
    cluster,
    console: c,
    port,
    dir,
    oidc,
    get,
    browser: () => OidcTestClient.discover(idp, { ...CLIENT, redirectUris: [redirectUri] }),
    async signIn(browser, user, password, next = '/nodes') {
      const start = await get(`/auth/oidc/start?next=${encodeURIComponent(next)}`);
      if (start.status !== 302) throw new Error(`/auth/oidc/start answered ${start.status}: ${start.body}`);
      const flow = cookiesOf(start.headers)[0];
      const back = await browser.actAsBrowser(start.headers.location!, user, password);
      const callback = await get(back.pathname + back.search, { cookie: flow });
      const cookie = cookiesOf(callback.headers).find((x) => x.startsWith('palisade_session_'));
      if (!cookie)
        throw new Error(`the callback set no session (${callback.status} ${callback.headers.location})`);
      return { cookie, callback };
    },
    async stop() {
      await c.stop();
      await cluster.stop();
      await idp.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
