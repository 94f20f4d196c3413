// `tsx server/main.ts [--port N] [--kubeconfig PATH] [--context NAME]... [--config FILE] ...`:
// Palisade's console in one process. With no kubeconfig (no --kubeconfig, no $KUBECONFIG,
// none in palisade.yaml) in a pod (KUBERNETES_SERVICE_HOST and the ServiceAccount token mounted)
// it uses its ServiceAccount, context `in-cluster`; elsewhere it starts the embedded cluster
// (demo scenario) in a child process of its own (sim/child.ts) and connects to that: like
// SQLite, the default back end needs nothing installed.
//
// What it says to the person who started it stays plain lines on stdout and stderr (the URL, the
// one-time sign-in link, the demo users, usage and startup errors): people and scripts read
// them. Everything else goes to the structured log (server/log.ts). The one-time link is a
// secret for this terminal: it is printed, never logged.
import { isLoopback } from '../lib/console/listenGuard.js';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { parseCommandLine, portOption } from '../lib/cli.js';
import { loadConfig } from './config/load.js';
import {
  contextsToShow,
  credentialsNamespacesOf,
  leaderElectionOf,
  modeOf,
  POSTGRES_URL_ENV,
  type PalisadeConfig,
  protectionContexts,
  type ProtectionConfig,
  sessionNamespaceConflict,
  sessionStoreOf,
} from './config/schema.js';
import { startConsole } from './console.js';
import { DEFAULT_KEY_SECRET_NAME } from './auth/keys.js';
import { runningEmbeddedCluster } from './kube/attach.js';
import { startClusterProcess } from './kube/clusterProcess.js';
import {
  clustersFromKubeconfig,
  clustersInCluster,
  IN_CLUSTER_CONTEXT,
  inClusterAvailable,
  podNamespace,
  SERVICE_ACCOUNT_DIR,
  StartupError,
} from './kube/kubeconfig.js';
import { component } from './log.js';
import { historyLocationOf } from './history/location.js';

const log = component('main');

const cliOptions = z.object({
  port: portOption(3000),
  kubeconfig: z.string().min(1, 'must not be empty').optional(),
  context: z.array(z.string().min(1, 'must not be empty')).default([]),
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  'read-only': z.boolean().default(false),
  config: z.string().min(1, 'must not be empty').optional(),
  /** where the embedded cluster's kubeconfig and infra.json go, and the history store (<state-dir>/history; given with a kubeconfig, too) */
  'state-dir': z.string().min(1, 'must not be empty').default('.palisade'),
  /** embedded cluster only: which scenario it runs */
  scenario: z.string().min(1, 'must not be empty').default('demo'),
  /** the embedded cluster's nodes and infrastructure on a real etcd + kube-apiserver + kube-controller-manager */
  real: z.boolean().default(false),
  /** gone: sign-in is always on (kept so an old command line gets a clear answer) */
  'insecure-no-auth': z.boolean().default(false),
  /** embedded cluster only: install the demo FencePolicy (automatic fencing over IPMI) or none */
  'fence-policy': z.enum(['demo', 'none'], { error: 'must be "demo" or "none"' }).default('demo'),
});
type CliOptions = z.infer<typeof cliOptions>;

const USAGE =
  'usage: npm start -- [--port N] [--kubeconfig PATH] [--context NAME]... [--config FILE] [--host ADDRESS] [--read-only] [--state-dir DIR] [--scenario demo|tiny|scale|cells|FILE] [--real] [--fence-policy demo|none]';

function usage(msg: string): never {
  console.error(`error: ${msg}\n${USAGE}`);
  process.exit(2);
}

function parse(argv: string[]): CliOptions {
  const cli = parseCommandLine(
    argv,
    {
      port: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string', multiple: true },
      host: { type: 'string' },
      'read-only': { type: 'boolean' },
      config: { type: 'string' },
      'state-dir': { type: 'string' },
      scenario: { type: 'string' },
      real: { type: 'boolean' },
      'fence-policy': { type: 'string' },
      'insecure-no-auth': { type: 'boolean' },
    },
    cliOptions,
  );
  if (!cli.ok) usage(cli.error);
  if (cli.help) {
    console.log(USAGE);
    process.exit(0);
  }
  return cli.options;
}

const MAX_IPMI_NODES = 64;

/** The embedded cluster writes its demo users' tokens beside its kubeconfig. */
const tokensFileFor = (kubeconfigPath: string) => join(dirname(kubeconfigPath), 'tokens.csv');

/** The simulator's modules; the container image ships without them (sim/ is not in it). */
async function withSimulator<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    throw new StartupError(
      `no kubeconfig was given and this installation has no embedded cluster (${(e as Error).message}): give --kubeconfig, or in a pod mount the ServiceAccount token (${SERVICE_ACCOUNT_DIR}/token)`,
    );
  }
}

/** The embedded cluster, when no kubeconfig was given: the one already running, else a new one in a child process. */
async function startEmbedded(
  stateDir: string,
  scenario: string,
  real: boolean,
  fencePolicy: 'demo' | 'none',
): Promise<Embedded> {
  // before anything is written: the container image ships without the simulator, and says so
  await withSimulator(() => import('../sim/scenario/load.js'));
  if (scenario === 'cells' && real)
    throw new StartupError('--scenario cells runs on the embedded API servers only; drop --real');
  if (scenario === 'cells') return startCellsScenario(stateDir);
  // the real control plane keeps its kubeconfig apart, so both can run side by side
  const kubeconfigPath = resolve(stateDir, real ? 'real' : '', 'kubeconfig');
  await mkdir(dirname(kubeconfigPath), { recursive: true });
  const running = await runningEmbeddedCluster(kubeconfigPath);
  if (running) {
    log.info(
      { url: running, kubeconfig: kubeconfigPath },
      'attached to the embedded cluster already running',
    );
    return {
      kubeconfigPath,
      tokensFile: tokensFileFor(kubeconfigPath),
      protection: {},
      stop: async () => undefined,
    };
  }
  const what = real ? 'real control plane' : 'embedded cluster';
  const cluster = await startClusterProcess({
    scenario,
    backend: real ? 'real' : 'embedded',
    kubeconfigPath,
    demoFencePolicy: fencePolicy === 'demo',
    // named apart, so the console and merged kubeconfigs tell the real control plane from the embedded one
    ...(real ? { contextName: 'palisade-real' } : {}),
    // a real BMC per node for fence_ipmilan: an ipmi_sim process each, so not at scale
    maxIpmiNodes: MAX_IPMI_NODES,
  });
  log.info(
    { scenario, kubeconfig: kubeconfigPath, pid: cluster.pid },
    `${what} ready (a process of its own)`,
  );
  return {
    kubeconfigPath,
    tokensFile: tokensFileFor(kubeconfigPath),
    protection: {},
    stop: () => cluster.stop(),
  };
}

interface Embedded {
  kubeconfigPath: string;
  /** the demo users' tokens (kube-apiserver's token file format) */
  tokensFile?: string;
  /** the contexts to show (all of them for core + cells) */
  contexts?: string[];
  /** protection's default on this embedded setup */
  protection: Partial<ProtectionConfig>;
  stop(): Promise<void>;
}

/** `--scenario cells`: a core API server and two worker cells, protection across them. */
async function startCellsScenario(stateDir: string): Promise<Embedded> {
  const [{ startCells }, { loadScenario, profilePath }] = await withSimulator(() =>
    Promise.all([import('../sim/cells.js'), import('../sim/scenario/load.js')]),
  );
  const cells = await startCells({
    scenario: await loadScenario(profilePath('cells')),
    stateDir: resolve(stateDir, 'cells'),
    log: (m) => component('embedded', { backend: 'cells' }).info(m),
  });
  log.info(
    { kubeconfig: cells.kubeconfigPath, core: cells.coreContext, cells: cells.cellContexts },
    `embedded core + ${cells.cellContexts.length} worker cells ready`,
  );
  return {
    kubeconfigPath: cells.kubeconfigPath,
    // the worker cells first: the console opens on the first, which has nodes to show
    contexts: [...cells.cellContexts, cells.coreContext],
    protection: {
      core: cells.coreContext,
      cells: cells.cellContexts.map((c) => ({ id: c, context: c })),
    },
    stop: () => cells.stop(),
  };
}

const STOP_GRACE_MS = 10_000;

/** --state-dir on the command line (its default is for the embedded cluster only) */
const stateDirGiven = (argv: string[]) =>
  argv.some((a) => a === '--state-dir' || a.startsWith('--state-dir='));

/** --kubeconfig, else $KUBECONFIG (all its files, merged), else the config file's, relative to that file. */
function chosenKubeconfig(opts: CliOptions, config: PalisadeConfig, configFile?: string) {
  const given = opts.kubeconfig ?? process.env.KUBECONFIG;
  if (given?.split(delimiter).some(Boolean))
    return given
      .split(delimiter)
      .filter(Boolean)
      .map((f) => resolve(f))
      .join(delimiter);
  const fromFile = config.kubeconfig?.replace(/^~(?=$|\/)/, homedir());
  return fromFile && resolve(configFile ? dirname(configFile) : '.', fromFile);
}

async function main() {
  const opts = parse(process.argv.slice(2));
  // no sign-in yet: a console that can act listens on loopback unless told there is no authentication
  if (opts['insecure-no-auth'])
    usage(
      '--insecure-no-auth is gone: sign-in is always on (a Kubernetes token, OIDC, or on loopback the one-time link npm start prints)',
    );
  const { config, file: configFile } = await loadConfig(opts.config);
  if (configFile) log.info({ file: configFile }, 'config read');
  // beyond loopback, browsers arrive with the machine's name in Host: the gate answers only names it knows
  if (!isLoopback(opts.host) && !config.server.allowedHosts.length && !config.server.publicURL)
    console.warn(
      `warning: listening on ${opts.host}, but only 127.0.0.1, localhost and [::1] are allowed Host names: list the names people use in palisade.yaml server.allowedHosts (or server.publicURL), or every request is refused with 403`,
    );
  const explicit = chosenKubeconfig(opts, config, configFile);
  // in a pod with no kubeconfig given: its ServiceAccount, in context `in-cluster`
  const inCluster = !explicit && inClusterAvailable();
  if (explicit) log.info({ kubeconfig: explicit }, 'configuration: kubeconfig');
  else if (inCluster)
    log.info(
      {
        context: IN_CLUSTER_CONTEXT,
        server: `${process.env.KUBERNETES_SERVICE_HOST}:${process.env.KUBERNETES_SERVICE_PORT}`,
        serviceAccount: SERVICE_ACCOUNT_DIR,
      },
      'configuration: in-cluster (no kubeconfig given; the ServiceAccount token, re-read as it rotates)',
    );
  else {
    if (process.env.KUBERNETES_SERVICE_HOST)
      log.warn(
        { serviceAccount: SERVICE_ACCOUNT_DIR },
        'KUBERNETES_SERVICE_HOST is set but no ServiceAccount token is mounted (automountServiceAccountToken: false?): not using the in-cluster configuration',
      );
    log.info({ stateDir: opts['state-dir'] }, 'configuration: embedded cluster (no kubeconfig given)');
  }
  const embedded =
    explicit || inCluster
      ? undefined
      : await startEmbedded(opts['state-dir'], opts.scenario, opts.real, opts['fence-policy']);
  const loadOptions = {
    // the embedded kubeconfig has its own contexts: the file's list is for real kubeconfigs
    contexts: embedded
      ? opts.context.length
        ? opts.context
        : embedded.contexts
      : contextsToShow(config, opts.context),
    // deletion protection's core and cells are connected to as well, shown or not
    also: embedded ? [] : protectionContexts(config.protection),
    modeOf: (context: string) => modeOf(config, context, opts['read-only']),
  };
  const clusters = inCluster
    ? clustersInCluster(loadOptions)
    : await clustersFromKubeconfig(explicit ?? resolve(embedded!.kubeconfigPath), loadOptions);
  const oidc = config.auth.oidc;
  const store = sessionStoreOf(config);
  const storeCluster =
    store.kind === 'kubernetes' && store.context !== undefined
      ? clusters.find((c) => c.context === store.context)
      : undefined;
  if (store.kind === 'kubernetes' && store.context !== undefined && !storeCluster)
    throw new StartupError(
      `config server.session.store.context: "${store.context}" is not a context of the kubeconfig`,
    );
  // Palisade's own namespace (the release namespace in a pod): where the key Secret lives by default
  const own = podNamespace();
  // where fence agents' Secrets may be read: as configured, else this pod's namespace (palisade-system outside one)
  const credentialsNamespaces = credentialsNamespacesOf(config, inCluster ? own : undefined);
  if (store.kind === 'kubernetes') {
    // the sessions' Role lists every Secret of their namespace: never one holding BMC credentials
    const conflict = sessionNamespaceConflict(store.namespace, credentialsNamespaces);
    if (conflict) throw new StartupError(`config ${conflict}`);
  }
  const console_ = await startConsole({
    clusters,
    port: opts.port,
    host: opts.host,
    auth: {
      allowedHosts: config.server.allowedHosts,
      publicURL: config.server.publicURL,
      session: {
        idleMs: config.server.session.idleTimeout,
        absoluteMs: config.server.session.absoluteTimeout,
      },
      // replicas share sessions through Secrets; one `npm start` keeps them in memory
      sessionStore:
        store.kind === 'kubernetes' ? { namespace: store.namespace, cluster: storeCluster?.id } : undefined,
      keySecret:
        store.kind === 'kubernetes'
          ? (store.keySecret ?? { namespace: own ?? store.namespace, name: DEFAULT_KEY_SECRET_NAME })
          : undefined,
      trustedProxies: config.server.trustedProxies,
      // whoever can read this terminal started Palisade and holds its kubeconfig
      signInLink: isLoopback(opts.host) && !oidc,
      oidc,
      // the sign-in page names where the demo users' tokens are (--state-dir moves them)
      demoTokens: embedded?.tokensFile ? relative(process.cwd(), embedded.tokensFile) : undefined,
    },
    // the next one-time link, once one is used: this terminal's, like the first
    announce: (line) => console.log(line),
    // on the embedded cluster protection is on by default; elsewhere palisade.yaml turns it on
    protection: config.protection ?? embedded?.protection,
    credentialsNamespaces,
    // one controller Lease per cluster: only its holder runs the loops
    election: leaderElectionOf(config.controllers),
    // FencePolicies the file defines (the chart's fencing.policies): the leader creates them
    fencePolicies: config.fencing?.policies,
    // where instance IDs are given out: palisade.yaml's list; beside the embedded cluster, everywhere
    instanceIdNamespaces: config.instanceIds?.namespaces ?? (embedded ? ['*'] : []),
    // the incident tracker (palisade.yaml incidents): on, resolving after 60 s of health
    incidents: config.incidents.tracker ? { quietMs: config.incidents.resolveAfter } : false,
    // the incident history: PostgreSQL when given, else PGlite in the state directory
    history: {
      location: historyLocationOf({
        storage: config.storage,
        envUrl: process.env[POSTGRES_URL_ENV],
        base: configFile ? dirname(configFile) : '.',
        stateDir:
          embedded || stateDirGiven(process.argv.slice(2))
            ? resolve(opts['state-dir'], opts.real ? 'real' : '')
            : undefined,
      }),
      retentionMs: config.storage.retention,
    },
  });
  for (const c of clusters)
    log.info(
      { cluster: c.id, context: c.context, embedded: c.infra !== undefined, mode: c.mode ?? 'normal' },
      'watching cluster',
    );
  console.log(`Palisade console: ${console_.url}`);
  if (embedded?.tokensFile && existsSync(embedded.tokensFile))
    console.log(`  demo users viewer, operator and admin: their tokens are in ${embedded.tokensFile}`);
  if (console_.auth.link)
    console.log(
      // the URL right after "one-time link: ", as scripts and tests read it
      `Sign in with this one-time link: ${console_.auth.link.url} (it works once, for ${Math.round((console_.auth.link.expiresAt - Date.now()) / 60_000)} minutes)`,
    );
  else if (!oidc) console.log('Sign in with a Kubernetes token of the cluster (kubectl create token ...)');

  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping Palisade');
    // a cluster that is already gone must not hold the stop up (informers and the webhook's
    // unregistration retry against it): after a grace period, leave anyway
    // (the webhook's drain comes first: its own bound on top)
    const graceMs = STOP_GRACE_MS + (config.protection?.webhook.drainTimeout ?? 0);
    const grace = setTimeout(() => {
      log.error({ signal, graceMs, step: console_.stopStep() }, 'not stopped in time: exiting anyway');
      process.exit(1);
    }, graceMs).unref();
    await console_.stop();
    // the embedded cluster's process has its own bound (SIGKILL 30 s after SIGTERM,
    // server/kube/clusterProcess.ts): stopping it is not the console hanging
    clearTimeout(grace);
    await embedded?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void onSignal('SIGINT'));
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
}

main().catch((e) => {
  const why = e instanceof StartupError ? e.message : `${(e as Error).message}`;
  console.error(`Palisade failed to start: ${why}`);
  process.exit(1);
});
