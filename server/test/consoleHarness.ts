// Test harness: a small embedded cluster (its demo users, on the back end PALISADE_CLUSTER
// names) with a console in front of it, started and stopped together; and raw HTTP requests,
// for tests that must set Host, Origin or cookies exactly as a browser or an attacker would.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  backendFromEnv,
  type EmbeddedCluster,
  type EmbeddedClusterOptions,
  startEmbeddedCluster,
} from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { tinyDurations } from '../../sim/test/clusterHarness.js';
import { type Console, type ConsoleOptions, startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';

export { freePort } from '../../sim/real/controlPlane.js';

export interface ClusterAndConsole {
  cluster: EmbeddedCluster;
  console: Console;
  dir: string;
  stop(): Promise<void>;
}

/** `count` nodes in one rack named `rack` (node names `<rack>-1`...), no workloads, and a console (no UI). */
export async function startClusterAndConsole(o: {
  name: string;
  rack: string;
  count: number;
  cluster?: Partial<EmbeddedClusterOptions>;
  console?: Omit<ConsoleOptions, 'clusters'>;
}): Promise<ClusterAndConsole> {
  const dir = await mkdtemp(join(tmpdir(), `palisade-${o.name}-`));
  const scenario = parseScenario(
    `name: ${o.name}\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-${o.rack}, racks: [{ name: ${o.rack}, count: ${o.count} }] }]\nworkloads: []\n`,
    o.name,
  );
  const cluster = await startEmbeddedCluster({
    scenario,
    kubeconfigPath: join(dir, 'kubeconfig'),
    backend: backendFromEnv(),
    ...o.cluster,
  });
  const console = await startConsole({
    clusters: await clustersFromKubeconfig(join(dir, 'kubeconfig')),
    ui: false,
    fencing: false,
    ...o.console,
  });
  await Promise.all([...console.clusters.values()].map((x) => x.synced()));
  const h = {
    cluster,
    console,
    dir,
    async stop() {
      // the console it has now: a test may have replaced it (history.int restarts it on a store
      // inside dir, which must be closed before dir is removed)
      await h.console.stop();
      await cluster.stop();
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
  return h;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request to 127.0.0.1:port with exactly these headers (a body gets its content-length). */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
