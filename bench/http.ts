// Raw HTTPS for the bench: node's https with a keep-alive agent and no client library,
// so the figures are the server's, not a client's (de)serialisation.
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Endpoint } from './child.js';

export interface Reply {
  status: number;
  /** empty when the caller asked to discard the body */
  body: Buffer;
  bytes: number;
  ttfbMs: number;
  /** time to the last byte */
  totalMs: number;
}

export interface RequestOptions {
  body?: string;
  contentType?: string;
  timeoutMs?: number;
  /** count the bytes but keep nothing (bulk loads) */
  discard?: boolean;
}

export class Client {
  readonly agent: https.Agent;

  constructor(
    readonly endpoint: Endpoint,
    maxSockets: number,
  ) {
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      ca: endpoint.ca,
    });
  }

  request(method: string, path: string, opts: RequestOptions = {}): Promise<Reply> {
    const { host, port, token } = this.endpoint;
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    if (opts.body !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(opts.body);
    }
    const timeoutMs = opts.timeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = https.request({ host, port, path, method, headers, agent: this.agent }, (res) => {
        const ttfbMs = performance.now() - t0;
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (!opts.discard) chunks.push(c);
        });
        res.on('end', () => {
          const totalMs = performance.now() - t0;
          const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, body, bytes, ttfbMs, totalMs });
        });
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () =>
        req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  /** Like request(), but anything other than the expected status is an error. */
  async expect(
    status: number | number[],
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<Reply> {
    const r = await this.request(method, path, opts);
    const ok = Array.isArray(status) ? status.includes(r.status) : r.status === status;
    if (!ok) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
    return r;
  }

  close() {
    this.agent.destroy();
  }
}

export interface PoolResult {
  ok: number;
  failed: number;
  elapsedMs: number;
  /** the time budget ran out before every task was started */
  timedOut: boolean;
  latenciesMs: number[];
  firstError?: string;
}

export interface PoolOptions {
  count: number;
  concurrency: number;
  budgetMs: number;
  /** give up after this many failures: a broken server should not cost the whole budget */
  maxFailures?: number;
}

/**
 * Runs task(0..count-1) with at most `concurrency` in flight, bounded in count and time.
 * Each task resolves with its latency in ms or throws.
 */
export async function runPool(o: PoolOptions, task: (i: number) => Promise<number>): Promise<PoolResult> {
  const t0 = performance.now();
  const deadline = t0 + o.budgetMs;
  const maxFailures = o.maxFailures ?? 50;
  const r: PoolResult = { ok: 0, failed: 0, elapsedMs: 0, timedOut: false, latenciesMs: [] };
  let next = 0;
  const worker = async () => {
    while (next < o.count && r.failed < maxFailures) {
      if (performance.now() > deadline) {
        r.timedOut = true;
        return;
      }
      const i = next++;
      try {
        r.latenciesMs.push(await task(i));
        r.ok++;
      } catch (e) {
        r.failed++;
        r.firstError ??= (e as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, o.count) }, worker));
  r.elapsedMs = performance.now() - t0;
  return r;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values: number[]): number {
  return percentile(values, 50);
}
