// The bench's instruments inside the webhook process: Admission.decide() and every HTTPS
// request timed, TLS connections counted, the webhook's own API calls timed, the batching
// gate (batching off: one request per protector enters the RetryBatch at a time, so each
// round judges one request and writes once), the keep-alive switch for its API client,
// an in-process CPU profiler, and readers for protection's metrics.
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as k8s from '@kubernetes/client-node';
import { KeepAliveJson } from '../../server/kube/keepAlive.js';
import { Admission } from '../../server/protection/admission.js';
import type { ProtectionMetrics } from '../../server/protection/metrics.js';
import { RetryBatch } from '../../server/protection/retryBatch.js';
import type { DecideRecord } from './protocol.js';

/** What the webhook process records, and its two switches. */
export const probe = {
  decisions: [] as DecideRecord[],
  /** every HTTPS request the webhook served, request event to last byte */
  httpMs: [] as number[],
  /** the webhook's own API calls: status writes (PUT …/status) and fresh reads after a conflict */
  apiMs: { write: [] as number[], read: [] as number[] },
  /** TLS connections the webhook accepted */
  connections: 0,
  /** off: one request per protector in the RetryBatch at a time */
  batching: true,
  /** on: the webhook's client-node calls share one keep-alive agent */
  shareAgent: false,
};

export function resetProbe() {
  probe.decisions.length = 0;
  probe.httpMs.length = 0;
  probe.connections = 0;
  probe.apiMs.write.length = 0;
  probe.apiMs.read.length = 0;
}

function timeDecide() {
  const decide = Admission.prototype.decide;
  Admission.prototype.decide = async function (this: Admission, input) {
    const t0 = performance.now();
    const base = {
      at: Date.now(),
      terminating: !!input.pod.metadata?.deletionTimestamp,
      podUid: input.pod.metadata?.uid ?? '',
    };
    try {
      const a = await decide.call(this, input);
      const code = a.allowed ? 200 : (a.code ?? 400);
      probe.decisions.push({
        ...base,
        ms: performance.now() - t0,
        allowed: a.allowed,
        code,
        protected: a.protectors.length > 0,
      });
      return a;
    } catch (e) {
      probe.decisions.push({
        ...base,
        ms: performance.now() - t0,
        allowed: false,
        code: 500,
        protected: true,
      });
      throw e;
    }
  };
}

/** Time every request the webhook's HTTPS listener serves (the only server in this process). */
function timeRequests() {
  const create = https.createServer;
  (https as any).createServer = (opts: https.ServerOptions, listener: (req: any, res: any) => void) => {
    const server = create(opts, (req, res) => {
      const t0 = performance.now();
      res.on('finish', () => probe.httpMs.push(performance.now() - t0));
      listener(req, res);
    });
    server.on('secureConnection', () => probe.connections++);
    return server;
  };
}

/** Batching off: requests for one protector enter the RetryBatch one after the other. */
function gateBatching() {
  const submit = RetryBatch.prototype.submit;
  const tails = new Map<string, Promise<unknown>>();
  RetryBatch.prototype.submit = function <Req, Res>(
    this: RetryBatch<Req, Res>,
    key: string,
    req: Req,
    deadline: number,
  ) {
    if (probe.batching) return submit.call(this, key, req, deadline) as Promise<Res>;
    const run = (tails.get(key) ?? Promise.resolve()).then(
      () => submit.call(this, key, req, deadline) as Promise<Res>,
    );
    tails.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  };
}

/** The webhook's status reads and writes go through KeepAliveJson (server/kube/keepAlive.ts). */
function timeApiCalls() {
  const proto = KeepAliveJson.prototype;
  const request = proto.request;
  proto.request = async function (this: KeepAliveJson, method, path, body) {
    const t0 = performance.now();
    try {
      return await request.call(this, method, path, body);
    } finally {
      if (path.endsWith('/status'))
        (method === 'GET' ? probe.apiMs.read : probe.apiMs.write).push(performance.now() - t0);
    }
  } as typeof proto.request;
}

/**
 * What-if: the console's kube clients (server/kube/kubeconfig.ts) give client-node no
 * agent, so every call of the webhook to the API server opens a new TLS connection. When
 * on, they share one keep-alive agent (as sim/'s shareConnections does).
 */
export function toggleableAgent(kc: k8s.KubeConfig) {
  const ca = kc.getCurrentCluster()?.caData;
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 128,
    ca: ca ? Buffer.from(ca, 'base64') : undefined,
  });
  const apply = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context) => {
    await apply(context);
    if (probe.shareAgent) context.setAgent(agent);
  };
}

/** A CPU profile of this process between two calls, taken in-process (--profile). */
export class Profiler {
  private session: Session | undefined;

  private post(method: string) {
    return new Promise<unknown>((resolve, reject) =>
      this.session!.post(method, (err, res) => (err ? reject(err) : resolve(res))),
    );
  }

  async start() {
    this.session = new Session();
    this.session.connect();
    await this.post('Profiler.enable');
    await this.post('Profiler.start');
  }

  async stop(label: string) {
    const { profile } = (await this.post('Profiler.stop')) as { profile: object };
    this.session!.disconnect();
    this.session = undefined;
    const path = join(tmpdir(), `palisade-webhook-${label}-${process.pid}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    return path;
  }
}

export async function byLabel(
  c: { get(): Promise<{ values: { labels: object; value: number }[] }> },
  label: string,
) {
  const out: Record<string, number> = {};
  for (const v of (await c.get()).values) {
    const k = String((v.labels as Record<string, unknown>)[label] ?? '');
    out[k] = (out[k] ?? 0) + v.value;
  }
  return out;
}

export async function writesBy(m: ProtectionMetrics, writer: string) {
  const out: Record<string, number> = {};
  for (const v of (await m.statusWrites.get()).values)
    if (v.labels.writer === writer) out[String(v.labels.outcome)] = v.value;
  return out;
}

export async function rounds(m: ProtectionMetrics) {
  const values = (await m.batchSize.get()).values;
  const pick = (suffix: string) => values.find((v) => v.metricName?.endsWith(suffix))?.value ?? 0;
  return { count: pick('_count'), sum: pick('_sum') };
}

/** Patch what the webhook is built from; before anything is constructed. */
export function instrumentWebhook() {
  timeDecide();
  timeRequests();
  gateBatching();
  timeApiCalls();
}
