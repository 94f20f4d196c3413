// The latency an unprotected pod's DELETE pays for the webhook: pods the webhook is called
// for against control pods its objectSelector leaves out, deleted alternately one at a
// time, with the same call seen from the API server and made straight from the bench. The
// webhook is called only in namespaces that hold a PodProtector (their protected-namespace
// label, issue 23): the namespace gets one that selects none of these pods, so its pods are
// the unprotected pods of a protected namespace — in any other namespace a DELETE pays nothing.
// A phase whose webhook answered no review measured nothing: it fails the bench.
import { Client } from '../http.js';
import type { CpuWindow } from './cpu.js';
import { directCalls } from './direct.js';
import {
  createPods,
  createProtector,
  podName,
  UNWEBHOOKED,
  waitAvailable,
  waitGone,
  waitProtectedNamespace,
} from './fixtures.js';
import type { WebhookStats } from './protocol.js';
import { cpuMs, profiled, type Rig } from './rig.js';

export interface LatencySeries {
  /** pods the webhook is called for (no protector selects them) */
  webhookMs: number[];
  /** pods the webhook's objectSelector leaves out: the API server without the webhook */
  controlMs: number[];
  /** the webhook's own time for these reviews, request event to last byte */
  webhookHttpMs: number[];
  /** the same reviews seen from the API server: its webhook call, request to last byte */
  apiServerCallMs: number[];
  /** the webhook called straight from the bench process (no cluster event loop in the way) */
  directMs: number[];
  /** webhook process CPU over the series / reviews it answered (TLS handshakes included) */
  webhookCpuMsPerReview: number;
  reviews: number;
  /** TLS connections the webhook accepted over the series */
  connections: number;
  cpu: CpuWindow;
  profile?: string;
}

const WARMUP_PAIRS = 5;

/** Delete control[i] then webhook[i], one request at a time; the first pairs only warm up. */
async function pairs(
  rig: Rig,
  c: Client,
  ns: string,
  prefixes: [string, string],
  n: number,
  label: string,
): Promise<Omit<LatencySeries, 'directMs'>> {
  const del = async (name: string) => {
    const r = await c.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`, { discard: true });
    if (r.status !== 200) throw new Error(`DELETE ${ns}/${name}: HTTP ${r.status}`);
    return r.totalMs;
  };
  for (let i = 0; i < WARMUP_PAIRS; i++) {
    await del(podName(prefixes[0], i));
    await del(podName(prefixes[1], i));
  }
  await Promise.all([rig.webhook.call('reset'), rig.cluster.call('webhookCalls', true)]);
  const w0 = await rig.webhook.call<WebhookStats>('stats');
  rig.cpu.begin();
  const controlMs: number[] = [];
  const webhookMs: number[] = [];
  const [, profile] = await profiled(rig, label, async () => {
    for (let i = WARMUP_PAIRS; i < n; i++) {
      controlMs.push(await del(podName(prefixes[0], i)));
      webhookMs.push(await del(podName(prefixes[1], i)));
    }
  });
  const cpu = rig.cpu.end();
  const w1 = await rig.webhook.call<WebhookStats>('stats');
  const apiServerCallMs = await rig.cluster.call<number[]>('webhookCalls', true);
  return {
    webhookMs,
    controlMs,
    apiServerCallMs,
    webhookHttpMs: w1.httpMs,
    webhookCpuMsPerReview: cpuMs(w0.cpu, w1.cpu) / Math.max(1, w1.decisions.length),
    reviews: w1.decisions.length,
    connections: w1.connections,
    cpu,
    ...(profile ? { profile } : {}),
  };
}

export async function unprotectedPhase(
  rig: Rig,
  perGroup: number,
  readyTimeoutMs: number,
): Promise<LatencySeries> {
  const ns = 'plain';
  const c = new Client(rig.endpoint, 4);
  try {
    const n = perGroup + WARMUP_PAIRS;
    const groups = [
      { prefix: 'c', count: n, labels: { app: 'plain', ...UNWEBHOOKED } },
      { prefix: 'w', count: n, labels: { app: 'plain' } },
    ];
    await createPods(c, ns, groups);
    await waitAvailable(c, ns, 'app=plain', 2 * n, readyTimeoutMs);
    await createProtector(c, ns, 'elsewhere', 'no-such-app', 0);
    await waitProtectedNamespace(c, ns, 60_000);
    rig.log(`${ns}: ${2 * n} unprotected pods Ready in a protected namespace`);
    const directMs = await directCalls(c, `/api/v1/namespaces/${ns}/pods/${podName('w', n - 1)}`, perGroup);
    const series = await pairs(rig, c, ns, ['c', 'w'], n, 'unprotected');
    if (series.reviews === 0)
      throw new Error(
        `unprotected DELETE: the webhook answered no review of the ${series.webhookMs.length} deletions it should have judged`,
      );
    // the storms must not share the cluster with these pods' terminations
    const left = await waitGone(c, ns, 'app=plain', 60_000);
    rig.log(`${ns}: ${left.total} pods still in the API after the phase`);
    return { ...series, directMs };
  } finally {
    c.close();
  }
}
