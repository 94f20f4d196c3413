// The console server in one process: the tRPC API at /api/trpc, the socket.io hub at
// /socket.io, sign-in under /auth, /metrics, /healthz and /readyz, and the Next.js UI for
// everything else, over one connection per cluster. Every request and every WebSocket upgrade
// passes the one request gate (server/auth) first. main.ts and the integration tests both
// start it through startConsole.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { Server as EngineServer } from 'engine.io';
import { Server as SocketServer } from 'socket.io';
import { BODY_LIMITS } from '../lib/auth/gate.js';
import { type AuthOptions, admittedOf, ConsoleAuth } from './auth/service.js';
import { consoleSignIn } from './auth/signIn.js';
import { healthRoute } from './http/health.js';
import { consoleRouter } from './http/router.js';
import type { HubOptions } from './realtime/hub.js';
import { startLiveFeeds } from './realtime/feeds.js';
import type { OidcConfig } from './config/schema.js';
import { component, type Logger, logger as rootLogger } from './log.js';
import {
  DEFAULT_KEY_SECRET_NAME,
  type InstallKeys,
  type KeySecretRef,
  keysFromSecret,
  processKeys,
} from './auth/keys.js';
import { serveMetrics } from './auth/metricsRoute.js';
import type { ClusterId } from '../lib/console/protocol.js';
import { ClusterConnection, type ClusterSpec } from './kube/connection.js';
import type { InformerTuning } from './kube/informer.js';
import { loadNextUi, NO_BUILD_MESSAGE, type NextUi, noUiHandler } from './next.js';
import { type ProtectionConfigInput, type ProtectionService, startProtection } from './protection/service.js';
import { appRouter } from './trpc/router.js';
import type { ConfigPolicySpecs } from './fencing/configPolicies.js';
import { type FencingService, startFencing } from './fencing/service.js';
import type { LiveServer } from './realtime/sockets.js';
import { IncidentService } from './incident/service.js';
import { servesIncidents } from './incident/tracker.js';
import { instanceIdService } from './instanceIds/loops.js';
import { Loops } from './loops.js';
import type { InstanceIdEndpoint } from './instanceIds/endpoint.js';
import type { CasOptions } from './instanceIds/cas.js';
import type { LeaderElection } from './runtime/manager.js';
import { ControllerRuntime } from './runtime/runtime.js';
import { REPLICA_IDENTITY } from './replica.js';
import { AUDIT_KINDS } from '../lib/history/audit.js';
import { HistoryRecorder } from './history/recorder.js';
import { type HistoryOptions, type HistoryService, startHistory } from './history/service.js';

export interface ConsoleOptions {
  clusters: ClusterSpec[];
  /** 0 picks a free port */
  port?: number;
  host?: string;
  /** serve the Next.js UI from this directory (default: the working directory); false: APIs only */
  ui?: { dir: string } | false;
  hub?: HubOptions;
  informers?: InformerTuning;
  /** where every part of the console logs, each as its component (the root logger by default) */
  logger?: Logger;
  /** prints a line for whoever started Palisade, never to the log (the next one-time link) */
  announce?: (line: string) => void;
  /** deletion protection (webhook, aggregators, generator); undefined or enabled: false: off */
  protection?: ProtectionConfigInput;
  /** the fencing controllers (on by default: they act only where FencePolicies exist) */
  fencing?: boolean;
  /**
   * palisade.yaml fencing.credentialsNamespaces, resolved (credentialsNamespacesOf): the only
   * namespaces a FencePolicy's exec agent may read Secrets from; the FencePolicy webhook and the
   * fencing controllers refuse any other (default palisade-system)
   */
  credentialsNamespaces?: string[];
  /** palisade.yaml's fencing.policies: FencePolicies the leader creates (server/fencing/configPolicies.ts) */
  fencePolicies?: ConfigPolicySpecs;
  /** the controller Lease per cluster (palisade.yaml controllers.leaderElection; client-go's defaults) */
  election?: Partial<LeaderElection>;
  /** the holder identity of this console's Leases (default the replica's, server/replica.ts) */
  identity?: string;
  /** the request gate and sign-in: allowed hosts, public URL, session limits, the one-time link, OIDC */
  auth?: Omit<AuthOptions, 'clusters' | 'announce' | 'logger' | 'keys'> & {
    oidc?: OidcConfig;
    /**
     * with a shared session store: the Secret holding the install's keys (default
     * palisade-session-key in the session store's namespace; main.ts passes palisade.yaml's)
     */
    keySecret?: KeySecretRef;
    /** the embedded cluster's demo users' tokens file, as the sign-in page names it (relative to where Palisade started) */
    demoTokens?: string;
  };
  /** the instance-ID endpoint's compare-and-swap: deadline and back-off after a 409 */
  instanceIds?: CasOptions;
  /**
   * the namespaces whose opted-in workloads get instance IDs (palisade.yaml instanceIds.namespaces;
   * ["*"]: every one); default none
   */
  instanceIdNamespaces?: readonly string[];
  /** how often the instance-ID collector sweeps (default 30 s) */
  instanceIdSweepMs?: number;
  /** the incident history (timeline, audit, replay): where it is kept; undefined: none (the audit reads Events) */
  history?: Omit<HistoryOptions, 'logger'>;
  /**
   * the incident tracker: declares an Incident when the cluster turns unhealthy and resolves it
   * once healthy for quietMs (default 60 s) unless a person commands it; false: off
   */
  incidents?: { quietMs?: number } | false;
}

export interface Console {
  url: string;
  port: number;
  clusters: Map<ClusterId, ClusterConnection>;
  protection?: ProtectionService;
  fencing?: FencingService;
  incident: IncidentService;
  /** the controller runtime: per cluster a manager (its controller Lease) and the loops it runs */
  runtime: ControllerRuntime;
  auth: ConsoleAuth;
  /** POST /instance-ids/acquire and /release (its compare-and-swap adapters, one per cluster) */
  instanceIds: InstanceIdEndpoint;
  /** the history store (opening in the background) and its recorder, when configured */
  history?: HistoryService;
  recorder?: HistoryRecorder;
  /** the socket.io server (its sockets, rooms and handlers: what the socket fuzz inspects) */
  io: LiveServer;
  stop(): Promise<void>;
  /** the step stop() is in ('' before it began): what a stop past its grace names */
  stopStep(): string;
}

const TRPC_PREFIX = '/api/trpc';

/** The clusters that serve Incidents to this console; each other one is told once, with why. */
async function incidentClusters(
  clusters: Map<ClusterId, ClusterConnection>,
  log: Logger,
): Promise<Set<string>> {
  const served = new Set<string>();
  await Promise.all(
    [...clusters.values()].map(async (conn) => {
      const ok = await servesIncidents(conn.spec.kc);
      if (ok === true) served.add(conn.id);
      else log.warn({ cluster: conn.id, why: ok }, 'no incident record on this cluster');
    }),
  );
  return served;
}

function displayHost(host: string) {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}

async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * The install's keys: from the key Secret when sessions are shared by replicas (tried for up to
 * 30 s: the API server may still be starting), else this process's own.
 */
async function installKeys(
  auth: ConsoleOptions['auth'],
  clusters: Map<ClusterId, ClusterConnection>,
  root: Logger,
): Promise<InstallKeys> {
  const where = auth?.sessionStore;
  if (!where) return processKeys();
  const conn = where.cluster ? clusters.get(where.cluster) : clusters.values().next().value;
  if (!conn) throw new Error(`session store: no cluster "${where.cluster ?? '(none connected)'}"`);
  const ref = auth.keySecret ?? { namespace: where.namespace, name: DEFAULT_KEY_SECRET_NAME };
  const log = component('auth', {}, root);
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      return await keysFromSecret(conn.core, ref, log);
    } catch (e) {
      if (Date.now() > until) throw e;
      log.warn({ err: (e as Error).message }, 'the session key Secret cannot be read yet: retrying');
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
}

export async function startConsole(opts: ConsoleOptions): Promise<Console> {
  const root = opts.logger ?? rootLogger;
  const log = component('console', {}, root);
  const host = opts.host ?? '127.0.0.1';
  const clusters = new Map(opts.clusters.map((s) => [s.id, new ClusterConnection(s, opts.informers, root)]));
  for (const c of clusters.values()) c.start();

  let ui: NextUi | undefined;
  if (opts.ui !== false) {
    ui = await loadNextUi(opts.ui?.dir ?? process.cwd(), host, opts.port ?? 0);
    if (!ui) log.warn(NO_BUILD_MESSAGE);
  }
  // every replica watches and serves; on each cluster the holder of the controller Lease runs the loops
  const runtime = new ControllerRuntime({
    election: opts.election,
    logger: root,
    // the name every answer of this replica carries (x-palisade-replica)
    identity: opts.identity ?? REPLICA_IDENTITY,
  });
  const protection =
    opts.protection && opts.protection.enabled !== false
      ? await startProtection({
          config: opts.protection,
          clusters: opts.clusters,
          logger: root,
          runtime,
          // the loops read the console's own watches (one per kind and cluster)
          informers: (c) => clusters.get(c.id)?.registry,
          credentialsNamespaces: opts.credentialsNamespaces,
        })
      : undefined;
  const fencing =
    opts.fencing === false
      ? undefined
      : await startFencing(clusters.values(), runtime, root, opts.fencePolicies, opts.credentialsNamespaces);
  const idWork = instanceIdService({
    clusters,
    cas: opts.instanceIds,
    namespaces: opts.instanceIdNamespaces ?? [],
    sweepMs: opts.instanceIdSweepMs,
    logger: root,
  });
  const instanceIds = idWork.endpoint;
  // every loop Palisade runs, each on its cluster's manager: added here and nowhere else
  const loops = new Loops(runtime).add([
    ...(protection?.loops ?? []),
    ...(fencing?.loops ?? []),
    ...idWork.loops,
  ]);
  // the webhooks once the loops run (a self-managed certificate comes from the leader's loop)
  await protection?.registerWebhooks();
  // opened in the background once the first lists are in (or after 15 s): /readyz neither waits for
  // it nor competes with it for CPU; the recorder queues until it is open
  const firstLists = Promise.race([
    Promise.all([...clusters.values()].map((c) => c.synced())),
    new Promise((r) => setTimeout(r, 15_000).unref()),
  ]);
  const history = opts.history && startHistory({ ...opts.history, logger: root, after: firstLists });
  // the install's keys (sessions, audit seals): before anything records or serves
  const keys = await installKeys(opts.auth, clusters, root);
  let recorded: (cluster: string, audit: boolean) => void = () => undefined;
  const recorder =
    history &&
    new HistoryRecorder({
      history,
      clusters: clusters.values(),
      protection,
      fencing,
      logger: root,
      auditKey: keys.audit,
      // the timeline refetches; Palisade's fence steps reach the Audit page as people's actions do
      onRecorded: (c, es) =>
        recorded(
          c,
          es.some((e) => AUDIT_KINDS.includes(e.kind)),
        ),
    });
  const incident = new IncidentService(
    clusters,
    { fencing, protection },
    { logger: root, history, tracker: opts.incidents, served: await incidentClusters(clusters, root) },
  );
  loops.add(incident.loopEntries);
  const auth = new ConsoleAuth({
    ...opts.auth,
    // impersonation only with OIDC sign-in (the chart grants `impersonate` only then)
    impersonates: !!opts.auth?.oidc,
    keys,
    clusters,
    announce: opts.announce,
    logger: root,
  });
  let baseUrl = '';
  const signIn = consoleSignIn({
    oidc: opts.auth?.oidc,
    demoTokens: opts.auth?.demoTokens,
    auth,
    publicUrl: () => opts.auth?.publicURL?.replace(/\/$/, '') ?? baseUrl,
    logger: root,
  });
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: `${TRPC_PREFIX}/`,
    // the gate refuses a larger Content-Length at once; this cuts off a chunked body as it comes
    maxBodySize: BODY_LIMITS.trpc,
    createContext: ({ req }) => ({
      clusters,
      protection,
      fencing,
      incident,
      runtime,
      history,
      identity: admittedOf(req)?.identity,
      access: auth.access,
      limits: auth.limits,
      auditKey: keys.audit,
    }),
  });
  // socket.io on an engine of its own, so the gate sees every handshake and upgrade first
  const engine = new EngineServer({ maxHttpBufferSize: BODY_LIMITS.socket });
  const io: LiveServer = new SocketServer({ path: '/socket.io', serveClient: false });
  io.bind(engine);
  // SIGTERM: not ready at once (the endpoints controller takes the replica out), still serving
  let stopping = false;
  let stopStep = '';
  const router = consoleRouter({
    auth,
    signIn: signIn.signIn,
    engine,
    health: healthRoute({ clusters: clusters.values(), protection, stopping: () => stopping }),
    metrics: (a, res) => serveMetrics(auth, protection, runtime, clusters.values().next().value, a, res),
    trpc,
    instanceIds: (req, res) => instanceIds.handle(req, res),
    ui: (req, res) => (ui?.handle ?? noUiHandler)(req, res),
    log,
  });
  const server = http.createServer(router.request);
  server.on('upgrade', router.upgrade);
  const feeds = startLiveFeeds({ io, clusters, auth, protection, fencing, incident, hub: opts.hub });
  recorded = feeds.recorded;
  const port = await listen(server, opts.port ?? 0, host);
  const url = `http://${displayHost(host)}:${port}`;
  baseUrl = url;
  // the embedded cluster's simulated pods learn where the instance-ID endpoint is: at the
  // address people reach the console by (a balancer in front of replicas), else its own
  loops.add(idWork.publishers(opts.auth?.publicURL ?? url));
  auth.listening(port, url);
  log.info({ url, clusters: [...clusters.keys()] }, 'listening');

  return {
    url,
    port,
    clusters,
    protection,
    fencing,
    incident,
    runtime,
    auth,
    instanceIds,
    history,
    recorder,
    io,
    stopStep: () => stopStep,
    async stop() {
      stopping = true;
      // each step named as it starts: a stop past its grace says which one held it (main.ts)
      const step = async (name: string, run: () => unknown) => {
        stopStep = name;
        await run();
      };
      // the webhook keeps answering (each answer closing its connection) until this replica's
      // endpoints are gone, while everything else stops
      const drained = protection?.drain();
      loops.stop();
      auth.stop();
      signIn.stop();
      feeds.stop();
      incident.stop();
      await step('fencing', () => fencing?.stop());
      // every loop stopped, each controller Lease released: another replica leads at once
      await step('controller runtime (releasing Leases)', () => runtime.stop());
      await step('webhook drain', () => drained);
      await step('protection', () => protection?.stop());
      await step('HTTP server', () => {
        io.disconnectSockets(true);
        engine.close();
        server.closeAllConnections();
        return new Promise<void>((r) => server.close(() => r()));
      });
      // what the recorder holds is written before the store closes
      await step('history recorder', () => recorder?.stop());
      await step('history store', () => history?.stop());
      await step('cluster connections', () => Promise.all([...clusters.values()].map((c) => c.stop())));
      await step('UI', () => ui?.close().catch(() => undefined));
      stopStep = 'done';
    },
  };
}
