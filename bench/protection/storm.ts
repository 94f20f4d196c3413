// The deletion storm: `deletes` DELETEs spread over the protected pods (each pod as often
// as the others, in a seeded random order, so a pod's second DELETE may meet it admitted,
// terminating or gone), from `clients` concurrent keep-alive connections through the API
// server, and what the answers say.
import { performance } from 'node:perf_hooks';
import type { Client } from '../http.js';
import { podName } from './fixtures.js';

export interface StormRequest {
  pod: number;
  status: number;
  /** sent this long after the storm started */
  at: number;
  ms: number;
  /** the Status message, for answers other than 200/404/409/429 */
  message?: string;
}

export interface StormRun {
  requests: StormRequest[];
  elapsedMs: number;
}

/** mulberry32: the same order on every run, so runs compare */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pod indexes for `deletes` requests: every pod ceil(deletes/pods) times, shuffled, cut to length. */
export function targets(pods: number, deletes: number, seed: number): number[] {
  const rounds = Math.ceil(deletes / pods);
  const out = Array.from({ length: rounds * pods }, (_, i) => i % pods);
  const rnd = random(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out.slice(0, deletes);
}

/**
 * Open every connection first, so the storm pays no TLS handshake: the bench's own to the
 * API server, and the API server's to the webhook (its keep-alive pool grows with the
 * reviews in flight), by deleting `clients` unprotected pods at once. Grace 0: they leave
 * the API at once, so no kubelet's final DELETE of them reaches the webhook mid-storm.
 */
export async function warm(c: Client, ns: string, prefix: string, clients: number) {
  await Promise.all(
    Array.from({ length: clients }, (_, i) =>
      c.expect(200, 'DELETE', `/api/v1/namespaces/${ns}/pods/${podName(prefix, i)}?gracePeriodSeconds=0`),
    ),
  );
}

export async function storm(
  c: Client,
  ns: string,
  prefix: string,
  order: number[],
  clients: number,
): Promise<StormRun> {
  const requests: StormRequest[] = [];
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < order.length) {
      const pod = order[next++];
      const t0 = performance.now();
      const r = await c.request('DELETE', `/api/v1/namespaces/${ns}/pods/${podName(prefix, pod)}`, {
        timeoutMs: 30_000,
      });
      const req: StormRequest = { pod, status: r.status, at: t0 - start, ms: performance.now() - t0 };
      if (![200, 404, 409, 429].includes(r.status)) req.message = messageOf(r.body);
      requests.push(req);
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  return { requests, elapsedMs: performance.now() - start };
}

function messageOf(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    return String(JSON.parse(text).message ?? text).slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

export interface StormTally {
  byStatus: Record<number, number>;
  /** distinct pods with at least one 200: the deletions the API server carried out */
  deletedPods: number;
  /** deletedPods beyond the quota (pods - minAvailable) */
  overAdmitted: number;
  firstError?: string;
}

export function tally(run: StormRun, pods: number, minAvailable: number): StormTally {
  const byStatus: Record<number, number> = {};
  const deleted = new Set<number>();
  let firstError: string | undefined;
  for (const r of run.requests) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    if (r.status === 200) deleted.add(r.pod);
    if (r.message) firstError ??= `HTTP ${r.status}: ${r.message}`;
  }
  return {
    byStatus,
    deletedPods: deleted.size,
    overAdmitted: Math.max(0, deleted.size - (pods - minAvailable)),
    ...(firstError ? { firstError } : {}),
  };
}
