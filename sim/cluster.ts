// The whole embedded cluster in one process: the API server with the project's CRDs, the
// simulated control plane, the kubelets, the infrastructure with its ground truth and
// safety checkers, and the infrastructure's control API. Everything below the API server talks to it
// only through the Kubernetes API, from the kubeconfig it wrote. Beside the kubeconfig go the
// demo users' tokens (tokens.csv: viewer, operator and admin, bound to Palisade's roles from
// deploy/rbac/) and the webhook client certificate's AdmissionConfiguration, the same on both
// back ends.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { createCertificateAuthority } from '../lib/pki/certificates.js';
import {
  WEBHOOK_CLIENT_CN,
  type WebhookClientFiles,
  writeWebhookClientConfig,
} from './apiserver/admission/clientCertificate.js';
import { type TokenEntry, formatTokenFile } from './apiserver/auth/tokenFile.js';
import { type ApiServer, startApiServer } from './apiserver/index.js';
import { SafetyChecker } from './checker/checker.js';
import type { ProtectionChecker } from './checker/protection.js';
import { watchProtection } from './checker/protectionWatch.js';
import { allControllers, controllersBesideRealControlPlane } from './controllers/index.js';
import { type RealControlPlane, startRealControlPlane } from './real/controlPlane.js';
import type { AuthenticationConfigInput } from './real/authConfig.js';
import type { Binaries } from './real/binaries.js';
import { CRD_DIR, installCrds } from './crdInstall.js';
import { fromRoot } from './root.js';
import {
  type Controller,
  type ControllerContext,
  makeContext,
  shareConnections,
} from './controllers/runtime/context.js';
import { type InfraApi, startInfraApi } from './infra/api.js';
import { installBmcSecret, installDemoFencePolicy } from './fencing/demoPolicy.js';
import { type Bmcs, startBmcs } from './infra/ipmi/bmcs.js';
import { Infrastructure } from './infra/infrastructure.js';
import { recordInfraEvents } from './infra/nodeEvents.js';
import { KubeletFleet } from './kubelet/fleet.js';
import {
  durationsOf,
  namespaces,
  nodeSpecs,
  storageClasses,
  tolerationSecondsOf,
  workloadObjects,
} from './scenario/build.js';
import type { Scenario } from './scenario/schema.js';
import { isConflict } from '../lib/kube/errorText.js';

/**
 * Which control plane the simulated data plane runs against: the embedded API server with
 * simulated controllers, or a real etcd + kube-apiserver + kube-controller-manager.
 */
export type ClusterBackend = 'embedded' | 'real';

/** PALISADE_CLUSTER=real runs tests and tools against the real control plane */
export function backendFromEnv(env = process.env): ClusterBackend {
  const v = env.PALISADE_CLUSTER ?? 'embedded';
  if (v !== 'embedded' && v !== 'real')
    throw new Error(`PALISADE_CLUSTER must be "embedded" or "real", not "${v}"`);
  return v;
}

export interface EmbeddedClusterOptions {
  scenario: Scenario;
  /** default: embedded */
  backend?: ClusterBackend;
  /** real backend: binaries already built (default: testenv/build.sh finds or builds them) */
  binaries?: Binaries;
  /** real backend: the kubeconfig's context name (default palisade-embedded) */
  contextName?: string;
  port?: number;
  kubeconfigPath?: string;
  infraPort?: number;
  serviceHosts?: Record<string, string>;
  /** create the scenario's workloads (tests may want an empty cluster with nodes) */
  workloads?: boolean;
  /** folder of CRDs to install at start (default deploy/crds/), or false for none */
  crdDir?: string | false;
  /** where to write the infrastructure file (default: infra.json beside the kubeconfig) */
  infraFile?: string;
  /** a real IPMI BMC (OpenIPMI ipmi_sim) per node, for fence_ipmilan; needs openipmi */
  ipmi?: boolean;
  /** install the demo FencePolicy (fence_ipmilan when ipmi is on, else the built-in power agent) */
  demoFencePolicy?: boolean;
  log?: (msg: string) => void;
  /**
   * real back end only: JWT (OIDC) authenticators for kube-apiserver's --authentication-config,
   * so people signed in at an identity provider are known to the cluster as they are to Palisade
   */
  authentication?: AuthenticationConfigInput;
}

export interface EmbeddedCluster {
  backend: ClusterBackend;
  apiserver: ApiServer | RealControlPlane;
  kc: k8s.KubeConfig;
  infra: Infrastructure;
  checker: SafetyChecker;
  /** deletion protection, judged from the API view (PodProtectors and pods) */
  protection: ProtectionChecker;
  /** names of the CRDs installed at start */
  crds: string[];
  fleet: KubeletFleet;
  controllers: Controller[];
  context: ControllerContext;
  infraApi: InfraApi;
  /** where infra.json (control API address and token) was written, if anywhere */
  infraFile?: string;
  /** the nodes' BMCs when started with ipmi: true (their endpoints go into infra.json) */
  bmcs?: Bmcs;
  /** the demo users (in tokensFile), each bound to its Palisade role by a ClusterRoleBinding */
  users: DemoUsers;
  /** kube-apiserver's token file of the demo users (beside the kubeconfig, mode 0600) */
  tokensFile: string;
  /** what the API server presents to admission webhooks: CN=kube-apiserver-webhook-client */
  webhookClient: WebhookClientFiles & { commonName: string };
  stop(): Promise<void>;
}

export type DemoRole = 'viewer' | 'operator' | 'admin';

export type DemoUsers = Record<DemoRole, { username: string; token: string; clusterRole: string }>;

/** Palisade's ClusterRoles (viewer ⊂ operator ⊂ admin, by aggregation) */
export const PALISADE_ROLES_FILE = fromRoot('deploy', 'rbac', 'palisade-roles.yaml');

const DEMO_ROLES: DemoRole[] = ['viewer', 'operator', 'admin'];

function demoUsers(): DemoUsers {
  const user = (role: DemoRole) => ({
    username: role,
    token: randomBytes(32).toString('hex'),
    clusterRole: `palisade-${role}`,
  });
  return { viewer: user('viewer'), operator: user('operator'), admin: user('admin') };
}

/** deploy/rbac/palisade-roles.yaml and one ClusterRoleBinding per demo user */
async function rbacObjects(users: DemoUsers): Promise<k8s.KubernetesObject[]> {
  const roles = YAML.parseAllDocuments(await readFile(PALISADE_ROLES_FILE, 'utf8')).map(
    (d) => d.toJS() as k8s.KubernetesObject,
  );
  const bindings = DEMO_ROLES.map((role) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `palisade-demo-${role}`, labels: { 'app.kubernetes.io/part-of': 'palisade' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: users[role].clusterRole },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: users[role].username }],
  }));
  return [...roles, ...bindings];
}

/**
 * Wait until the aggregated roles hold their rules: the aggregation controller fills them in a
 * moment after they are created (kube-controller-manager's on the real back end), and until then
 * the demo admin could not even read a NodeFence.
 */
async function untilAggregated(kc: k8s.KubeConfig, timeoutMs = 30_000) {
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const grants = (rules: k8s.V1PolicyRule[] | undefined, resource: string, verb: string) =>
    (rules ?? []).some((r) => r.resources?.includes(resource) && r.verbs.includes(verb));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [operator, admin] = await Promise.all(
      ['palisade-operator', 'palisade-admin'].map((name) => rbac.readClusterRole({ name })),
    );
    // admin holds the viewer's rules through the operator: the whole chain is filled in
    if (
      grants(operator.rules, 'pods', 'list') &&
      grants(admin.rules, 'nodefences', 'list') &&
      grants(admin.rules, 'nodefences', 'approve')
    )
      return;
    if (Date.now() > deadline)
      throw new Error(
        `Palisade's ClusterRoles were not aggregated within ${timeoutMs / 1000} s (is the clusterrole-aggregation controller running?)`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function infraFileFor(kubeconfigPath: string): string {
  return join(dirname(kubeconfigPath), 'infra.json');
}

/** workloads created at once: enough to hide round trips, few enough not to flood the API */
const CREATE_CONCURRENCY = 16;

export async function createAll(kc: k8s.KubeConfig, objects: k8s.KubernetesObject[]) {
  shareConnections(kc);
  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const o = objects[next++];
      try {
        await api.create(o);
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, objects.length) }, worker));
}

export async function startEmbeddedCluster(opts: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
  const log = opts.log ?? (() => undefined);
  const s = opts.scenario;
  const durations = durationsOf(s);
  const backend = opts.backend ?? 'embedded';
  // the demo users' tokens and the webhook client certificate go beside the kubeconfig
  const ownState = opts.kubeconfigPath ? undefined : await mkdtemp(join(tmpdir(), 'palisade-cluster-'));
  const stateDir = ownState ?? dirname(opts.kubeconfigPath!);
  const ca = await createCertificateAuthority(
    backend === 'real' ? 'palisade-real-ca' : 'palisade-embedded-ca',
  );
  const users = demoUsers();
  const tokensFile = join(stateDir, 'tokens.csv');
  const tokenEntries: TokenEntry[] = DEMO_ROLES.map((r) => ({
    token: users[r].token,
    username: users[r].username,
    uid: users[r].username,
    groups: [],
  }));
  await writeFile(tokensFile, formatTokenFile(tokenEntries), { mode: 0o600 });
  const webhookClient = await writeWebhookClientConfig(stateDir, ca);
  const auth = {
    ca,
    tokenAuthFile: tokensFile,
    admissionControlConfigFile: webhookClient.admissionConfigFile,
  };
  const apiserver =
    backend === 'real'
      ? await startRealControlPlane({
          port: opts.port,
          kubeconfigPath: opts.kubeconfigPath,
          durations,
          defaultTolerationSeconds: tolerationSecondsOf(s),
          binaries: opts.binaries,
          contextName: opts.contextName,
          log,
          authentication: opts.authentication,
          ...auth,
        })
      : await startApiServer({
          port: opts.port,
          kubeconfigPath: opts.kubeconfigPath,
          defaultTolerationSeconds: tolerationSecondsOf(s),
          serviceHosts: opts.serviceHosts,
          ...auth,
        });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(apiserver.kubeconfig);
  log(`API server ready at ${apiserver.url}`);
  const crds = opts.crdDir === false ? [] : await installCrds(kc, opts.crdDir ?? CRD_DIR);
  if (crds.length) log(`CRDs established: ${crds.join(', ')}`);
  await createAll(kc, await rbacObjects(users));
  await untilAggregated(kc);
  log(`demo users ${DEMO_ROLES.join(', ')} bound to Palisade's roles (tokens in ${tokensFile})`);

  const infra = new Infrastructure();
  const checker = new SafetyChecker(infra.truth);
  // every fault and recovery as an Event on its Node, whoever caused it (the history records it)
  const stopInfraEvents = recordInfraEvents(kc, infra.truth);
  const context = makeContext(kc, durations);
  const controllers = backend === 'real' ? controllersBesideRealControlPlane() : allControllers();
  for (const c of controllers) c.register(context);
  await context.informers.startAll();
  for (const c of controllers) c.start();
  log(`${controllers.length} controllers running`);
  const protection = await watchProtection(kc, context.informers, {
    emit: (type, violation) => infra.truth.emitEvent({ type, violation }),
    waitForProtectors: crds.includes('podprotectors.podseidon.kubewharf.io'),
  });

  // the kubelets read the controllers' informers: every pod event decoded once, not twice
  const fleet = new KubeletFleet(kc, infra, durations, { informers: context.informers });
  await fleet.start();
  await createAll(kc, storageClasses(s));
  const specs = nodeSpecs(s);
  for (const spec of specs) fleet.addNode(spec);
  log(`${specs.length} nodes booting`);

  if (opts.workloads !== false) {
    await createAll(
      kc,
      namespaces(s).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    );
    await createAll(kc, s.workloads.flatMap(workloadObjects));
    log(`${s.workloads.length} workloads created`);
  }

  const infraApi = await startInfraApi(infra, [checker, protection], opts.infraPort);
  const bmcs = opts.ipmi
    ? await startBmcs(infra, { log, infraUrl: infraApi.url, infraToken: infraApi.token })
    : undefined;
  if (bmcs) log(`IPMI BMCs (ipmi_sim) for ${Object.keys(bmcs.endpoints()).length} nodes`);
  if (bmcs) await installBmcSecret(kc, bmcs);
  if (opts.demoFencePolicy) await installDemoFencePolicy(kc, bmcs, log);
  let infraFile: string | undefined;
  if (opts.infraFile || opts.kubeconfigPath) {
    infraFile = opts.infraFile ?? infraFileFor(opts.kubeconfigPath!);
    await writeFile(
      infraFile,
      JSON.stringify(
        {
          url: infraApi.url,
          token: infraApi.token,
          scenario: s.name,
          ipmi: bmcs?.endpoints(),
          // kube-controller-manager's wait is fixed at 6 min; the simulated one follows the scenario
          forceDetach: {
            enabled: durations.forceDetachEnabled,
            maxWaitMs: backend === 'real' ? 6 * 60_000 : durations.forceDetachTimeoutMs,
          },
        },
        null,
        2,
      ),
      { mode: 0o600 },
    );
  }

  return {
    backend,
    apiserver,
    kc,
    infra,
    checker,
    protection,
    crds,
    fleet,
    controllers,
    context,
    infraApi,
    infraFile,
    bmcs,
    users,
    tokensFile,
    webhookClient: { ...webhookClient, commonName: WEBHOOK_CLIENT_CN },
    async stop() {
      // the BMCs call back into the infrastructure API
      await bmcs?.stop();
      await infraApi.stop();
      await fleet.stop();
      for (const c of controllers) c.stop();
      await protection.stop();
      await context.informers.stopAll();
      checker.stop();
      stopInfraEvents();
      infra.stop();
      await apiserver.stop();
      if (ownState) await rm(ownState, { recursive: true, force: true });
    },
  };
}
