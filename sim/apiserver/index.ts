// The embedded Kubernetes API server: HTTPS on 127.0.0.1 with a generated CA, a
// kubeconfig with an admin bearer token (system:masters), more users from a token file,
// ServiceAccount tokens, RBAC on every request, and the storage, admission, aggregation and
// cleanup loops behind it.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import { WebhookClientAuth } from './admission/clientAuth.js';
import { AuthServices } from './auth/index.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './auth/bootstrap.js';
import { type TokenEntry, parseTokenFile } from './auth/tokenFile.js';
import { ClusterRoleAggregation } from './controllers/clusterRoleAggregation.js';
import { CleanupLoops } from './controllers/cleanup.js';
import { GarbageCollector } from './controllers/garbageCollector.js';
import { NamespaceContents } from './controllers/namespaceContents.js';
import { ApiCore } from './core/api.js';
import { requestHandler } from './http/server.js';
import type { WatchTiming } from './http/watch.js';
import { kubeconfigYaml, writeKubeconfig } from './kubeconfig.js';

export interface ApiServerOptions {
  port?: number;
  host?: string;
  /** write the kubeconfig here (omit to skip writing) */
  kubeconfigPath?: string;
  /** events kept per collection for watch resumption */
  watchWindow?: number;
  bookmarkIntervalMs?: number;
  maxWatchSeconds?: number;
  /** watch events written within this many milliseconds go out together */
  watchFlushDelayMs?: number;
  defaultTolerationSeconds?: number;
  /** "name.namespace.svc" -> "127.0.0.1:port", for webhooks that reference a Service */
  serviceHosts?: Record<string, string>;
  /** kube-apiserver's --token-auth-file: more users, `token,user,uid,"group1,group2"` */
  tokenAuthFile?: string;
  /** more users, as parsed token-file entries (beside or instead of tokenAuthFile) */
  tokens?: TokenEntry[];
  /**
   * kube-apiserver's --admission-control-config-file: an AdmissionConfiguration whose
   * ValidatingAdmissionWebhook kubeconfig gives the client certificate shown to each webhook
   */
  admissionControlConfigFile?: string;
  /** the cluster's CA (signs the serving certificate, is the kubeconfig's); default: a new one */
  ca?: CertificateAuthority;
}

export interface ApiServer {
  url: string;
  port: number;
  token: string;
  caPem: string;
  kubeconfig: string;
  kubeconfigPath?: string;
  core: ApiCore;
  /** authentication, impersonation and RBAC (for tests and tools that look inside) */
  auth: AuthServices;
  stop(): Promise<void>;
}

const defaultNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
// as the real control plane's token file names it (user, uid, group)
const admin = {
  username: 'palisade-admin',
  uid: 'palisade-admin',
  groups: ['system:masters', 'system:authenticated'],
};

async function seed(core: ApiCore) {
  const o = { user: admin, dryRun: false };
  const ns = core.registry.lookup('', 'v1', 'namespaces')!;
  for (const name of defaultNamespaces) await core.create(ns, undefined, { metadata: { name } }, o);
  // kube-apiserver's RBAC bootstrap (the subset clients rely on)
  const roles = core.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
  const bindings = core.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings')!;
  for (const r of bootstrapClusterRoles) await core.create(roles, undefined, structuredClone(r), o);
  for (const b of bootstrapClusterRoleBindings) await core.create(bindings, undefined, structuredClone(b), o);
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const ca = opts.ca ?? (await createCertificateAuthority('palisade-embedded-ca'));
  const serving = await ca.issueServing('kube-apiserver', [
    '127.0.0.1',
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    '::1',
  ]);
  const token = randomBytes(24).toString('hex');
  const fromFile = opts.tokenAuthFile
    ? parseTokenFile(await readFile(opts.tokenAuthFile, 'utf8'), opts.tokenAuthFile)
    : [];
  const core = new ApiCore({
    watchWindow: opts.watchWindow ?? 20_000,
    defaultTolerationSeconds: opts.defaultTolerationSeconds ?? 300,
    serviceHosts: opts.serviceHosts ?? {},
    webhookClientAuth: opts.admissionControlConfigFile
      ? await WebhookClientAuth.load(opts.admissionControlConfigFile)
      : undefined,
  });
  const auth = new AuthServices(core.store, [
    { token, username: admin.username, uid: admin.uid, groups: ['system:masters'] },
    ...fromFile,
    ...(opts.tokens ?? []),
  ]);
  core.rbacWriteCheck = auth.checkRbacWrite;
  core.admission.authorize = (a) => auth.authorizer.authorize(a);
  await seed(core);
  const aggregation = new ClusterRoleAggregation(core);
  const gc = new GarbageCollector(core);
  const cleanup = new CleanupLoops(core);
  const contents = new NamespaceContents(core, ca.certPem);
  const timing: WatchTiming = {
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    maxWatchSeconds: opts.maxWatchSeconds ?? 1800,
    maxBufferedBytes: 256 * 1024 * 1024,
    flushDelayMs: opts.watchFlushDelayMs ?? 2,
  };
  let address = '';
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem },
    requestHandler({
      core,
      auth,
      timing,
      serverAddress: () => address,
    }),
  );
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  const url = `https://${host}:${port}`;
  const kubeconfig = kubeconfigYaml(url, ca.certPem, token);
  if (opts.kubeconfigPath) await writeKubeconfig(opts.kubeconfigPath, kubeconfig);
  return {
    url,
    port,
    token,
    caPem: ca.certPem,
    kubeconfig,
    kubeconfigPath: opts.kubeconfigPath,
    core,
    auth,
    stop: () =>
      new Promise<void>((resolve) => {
        auth.stop();
        aggregation.stop();
        gc.stop();
        cleanup.stop();
        contents.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
