// The console server in one process: the tRPC API at /api/trpc, the socket.io hub at
// /socket.io and the Next.js UI for everything else, over one connection per cluster.
// main.ts and the integration tests both start it through startConsole.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { Server as SocketServer } from 'socket.io';
import type { ClusterId } from '../lib/console/protocol.js';
import { ClusterConnection, type ClusterSpec } from './kube/connection.js';
import type { InformerTuning } from './kube/informer.js';
import { loadNextUi, NO_BUILD_MESSAGE, type NextUi, noUiHandler } from './next.js';
import { type HubOptions, RealtimeHub } from './realtime/hub.js';
import { SimulationHub } from './realtime/simulation.js';
import type { ProtectionConfig } from './config/schema.js';
import { type ProtectionService, startProtection } from './protection/service.js';
import { ProtectionFeed } from './realtime/protection.js';
import { appRouter } from './trpc/router.js';
import { type FencingService, startFencing } from './fencing/service.js';
import { FencingFeed } from './realtime/fencing.js';
import { VolumesFeed } from './realtime/volumes.js';

export interface ConsoleOptions {
  clusters: ClusterSpec[];
  /** 0 picks a free port */
  port?: number;
  host?: string;
  /** serve the Next.js UI from this directory (default: the working directory); false: APIs only */
  ui?: { dir: string } | false;
  hub?: HubOptions;
  informers?: InformerTuning;
  log?: (msg: string) => void;
  /** deletion protection (webhook, aggregators, generator); undefined or enabled: false: off */
  protection?: Partial<ProtectionConfig>;
  /** the fencing controllers (on by default: they act only where FencePolicies exist) */
  fencing?: boolean;
  /** a console reachable beyond loopback without sign-in: the banner every page shows */
  security?: { banner?: string };
}

export interface Console {
  url: string;
  port: number;
  clusters: Map<ClusterId, ClusterConnection>;
  protection?: ProtectionService;
  fencing?: FencingService;
  stop(): Promise<void>;
}

const TRPC_PREFIX = '/api/trpc';

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

async function serveMetrics(p: ProtectionService | undefined, res: http.ServerResponse) {
  const text = p ? await p.metrics.registry.metrics() : '';
  res.writeHead(200, {
    'content-type': p?.metrics.registry.contentType ?? 'text/plain; version=0.0.4',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startConsole(opts: ConsoleOptions): Promise<Console> {
  const log = opts.log ?? (() => undefined);
  const host = opts.host ?? '127.0.0.1';
  const clusters = new Map(opts.clusters.map((s) => [s.id, new ClusterConnection(s, opts.informers)]));
  for (const c of clusters.values()) c.start();

  let ui: NextUi | undefined;
  if (opts.ui !== false) {
    ui = await loadNextUi(opts.ui?.dir ?? process.cwd(), host, opts.port ?? 0);
    if (!ui) log(NO_BUILD_MESSAGE);
  }
  const protection =
    opts.protection && opts.protection.enabled !== false
      ? await startProtection({ config: opts.protection, clusters: opts.clusters, log })
      : undefined;
  const fencing = opts.fencing === false ? undefined : await startFencing(clusters.values(), log);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: `${TRPC_PREFIX}/`,
    createContext: () => ({ clusters, protection, fencing, security: opts.security }),
  });
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/metrics') return void serveMetrics(protection, res);
    if (path === TRPC_PREFIX || path.startsWith(`${TRPC_PREFIX}/`) || path.startsWith(`${TRPC_PREFIX}?`))
      return trpc(req, res);
    void Promise.resolve((ui?.handle ?? noUiHandler)(req, res)).catch((e) => {
      log(`UI request ${path} failed: ${(e as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const io = new SocketServer(server, { path: '/socket.io', serveClient: false });
  const hub = new RealtimeHub(io, clusters, opts.hub);
  const sim = new SimulationHub(io, clusters.values());
  const feed = protection && new ProtectionFeed(io, protection);
  const fencingFeed = fencing && new FencingFeed(io, fencing);
  const volumesFeed = new VolumesFeed(io, clusters);
  const port = await listen(server, opts.port ?? 0, host);

  return {
    url: `http://${displayHost(host)}:${port}`,
    port,
    clusters,
    protection,
    fencing,
    async stop() {
      feed?.stop();
      fencingFeed?.stop();
      volumesFeed.stop();
      await fencing?.stop();
      await protection?.stop();
      hub.stop();
      sim.stop();
      io.disconnectSockets(true);
      server.closeAllConnections();
      await new Promise<void>((r) => io.close(() => r()));
      await Promise.all([...clusters.values()].map((c) => c.stop()));
      await ui?.close().catch(() => undefined);
    },
  };
}
