// What the parent asks the cluster's API server directly, with raw node:https and the
// kubeconfig's token and CA: /healthz latency, a watch counting Lease renewals, Lease
// ages, and the pod count. Raw HTTPS so that the figures are the server's, not a client
// library's, and so the probes cost the cluster as little as possible.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import YAML from 'yaml';

export interface Endpoint {
  host: string;
  port: number;
  token: string;
  ca: string;
}

export function readKubeconfig(path: string): Endpoint {
  const doc = YAML.parse(readFileSync(path, 'utf8'));
  const cluster = doc.clusters[0].cluster;
  const url = new URL(cluster.server);
  return {
    host: url.hostname,
    port: Number(url.port),
    token: doc.users[0].user.token,
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
  };
}

export class Api {
  private readonly agent: https.Agent;

  constructor(
    private readonly ep: Endpoint,
    sockets = 1,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: ep.ca });
  }

  request(path: string, timeoutMs: number, onChunk?: (c: Buffer) => void) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(
        {
          host: this.ep.host,
          port: this.ep.port,
          path,
          agent: this.agent,
          headers: { authorization: `Bearer ${this.ep.token}`, accept: 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => (onChunk ? onChunk(c) : chunks.push(c)));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          res.on('error', reject);
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${path}: no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  async json<T>(path: string, timeoutMs = 60_000): Promise<T> {
    const r = await this.request(path, timeoutMs);
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body) as T;
  }

  close() {
    this.agent.destroy();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface HealthPoint {
  at: number;
  ms: number;
  ok: boolean;
}

/**
 * /healthz every `everyMs`, one at a time on its own connection: a probe that is still
 * waiting when the next is due simply delays it, so a stalled loop shows up as one long
 * latency rather than a pile of queued requests.
 */
export class HealthSampler {
  readonly points: HealthPoint[] = [];
  private stopped = false;
  private readonly api: Api;

  constructor(
    ep: Endpoint,
    private readonly everyMs = 200,
  ) {
    this.api = new Api(ep, 1);
  }

  async run() {
    while (!this.stopped) {
      const start = performance.now();
      const at = Date.now();
      let ok = false;
      try {
        ok = (await this.api.request('/healthz', 30_000)).status === 200;
      } catch {
        ok = false;
      }
      const ms = performance.now() - start;
      this.points.push({ at, ms, ok });
      await sleep(Math.max(0, this.everyMs - ms));
    }
  }

  stop() {
    this.stopped = true;
    this.api.close();
  }
}

interface Lease {
  metadata: { name: string; resourceVersion: string };
  spec?: { renewTime?: string };
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

/**
 * Counts Lease MODIFIED events in kube-node-lease as they arrive (one per renewal),
 * resuming from the last resourceVersion if the stream ends and relisting on 410.
 */
export class LeaseWatcher {
  /** arrival time (ms since epoch) of every MODIFIED event */
  readonly modified: number[] = [];
  readonly added: number[] = [];
  reconnects = 0;
  relists = 0;
  private rv = '';
  private stopped = false;
  private readonly api: Api;

  constructor(ep: Endpoint) {
    this.api = new Api(ep, 2);
  }

  async run() {
    while (!this.stopped) {
      try {
        if (!this.rv) await this.relist();
        await this.watch();
      } catch {
        if (!this.stopped) await sleep(500);
      }
      if (!this.stopped) this.reconnects++;
    }
  }

  private async relist() {
    const list = await this.api.json<{ metadata: { resourceVersion: string } }>(LEASES);
    this.rv = list.metadata.resourceVersion;
    this.relists++;
  }

  private watch() {
    let rest = '';
    const onChunk = (c: Buffer) => {
      const lines = (rest + c.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line) this.event(line);
    };
    const path = `${LEASES}?watch=true&allowWatchBookmarks=true&resourceVersion=${this.rv}`;
    return this.api.request(path, 24 * 3600_000, onChunk);
  }

  private event(line: string) {
    const e = JSON.parse(line) as { type: string; object: Lease & { code?: number } };
    if (e.type === 'ERROR') {
      // 410 Expired: our resourceVersion fell out of the server's window
      this.rv = '';
      return;
    }
    this.rv = e.object.metadata.resourceVersion;
    if (e.type === 'MODIFIED') this.modified.push(Date.now());
    else if (e.type === 'ADDED') this.added.push(Date.now());
  }

  /** MODIFIED events that arrived in [from, to). */
  countBetween(from: number, to: number): number {
    let n = 0;
    for (const t of this.modified) if (t >= from && t < to) n++;
    return n;
  }

  stop() {
    this.stopped = true;
    this.api.close();
  }
}

export interface LeaseAges {
  at: number;
  leases: number;
  /** created but never renewed (no spec.renewTime yet) */
  neverRenewed: number;
  /** renewTime older than the node-monitor grace period */
  staleGrace: number;
  /** renewTime older than two renew intervals (one missed renewal) */
  staleTwoIntervals: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The age of every node Lease's renewTime, from one list of kube-node-lease. */
export async function leaseAges(api: Api, graceMs: number, renewMs: number): Promise<LeaseAges> {
  const list = await api.json<{ items: Lease[] }>(LEASES);
  const now = Date.now();
  const renewed = list.items.filter((l) => l.spec?.renewTime);
  const ages = renewed.map((l) => now - Date.parse(l.spec!.renewTime!)).sort((a, b) => a - b);
  return {
    at: now,
    leases: list.items.length,
    neverRenewed: list.items.length - renewed.length,
    staleGrace: ages.filter((a) => a > graceMs).length,
    staleTwoIntervals: ages.filter((a) => a > 2 * renewMs).length,
    p50Ms: pick(ages, 50),
    p99Ms: pick(ages, 99),
    maxMs: ages.length ? ages[ages.length - 1] : 0,
  };
}

/** How many pods the API server holds: one item plus remainingItemCount, no full list. */
export async function apiPodCount(api: Api): Promise<number> {
  const list = await api.json<{ items: unknown[]; metadata: { remainingItemCount?: number } }>(
    '/api/v1/pods?limit=1',
  );
  return list.items.length + (list.metadata.remainingItemCount ?? 0);
}

export function pick(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function percentiles(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return { p50: pick(s, 50), p99: pick(s, 99), max: s.length ? s[s.length - 1] : 0, n: s.length };
}
