// One deletion storm as a phase: a fresh namespace of protected pods, the webhook set up
// for the variant (batching on or off, its API client kept alive or not), the storm, and
// everything the children and the API say about it afterwards.
import { sleep } from '../common.js';
import { Client } from '../http.js';
import type { CpuWindow } from './cpu.js';
import {
  census,
  createPods,
  createProtector,
  type PodCensus,
  type Summary,
  waitAggregated,
  waitAvailable,
  protectorSummary,
} from './fixtures.js';
import type { AggregatorStats, DecideRecord, Violation, WebhookStats } from './protocol.js';
import { cpuMs, profiled, type Rig } from './rig.js';
import { type StormRun, type StormTally, storm, tally, targets, warm } from './storm.js';

export interface StormConfig {
  pods: number;
  minAvailable: number;
  deletes: number;
  clients: number;
  readyTimeoutMs: number;
}

export interface StormVariant {
  label: string;
  ns: string;
  batching: boolean;
  /** what-if: the webhook's client-node calls to the API server on one keep-alive agent */
  keepAlive: boolean;
}

export interface StormResult extends StormVariant {
  run: StormRun;
  tally: StormTally;
  /** the API's view right after the last answer */
  after: PodCensus;
  /** the protector's status once the aggregator caught up */
  settled: Summary;
  violations: Violation[];
  webhook: {
    /** AdmissionReviews Admission.decide() answered during the storm */
    reviews: DecideRecord[];
    httpMs: number[];
    connections: number;
    apiMs: WebhookStats['apiMs'];
    cpuMs: number;
    writes: Record<string, number>;
    rounds: { count: number; sum: number };
  };
  aggregator: { cpuMs: number; writes: Record<string, number> };
  cpu: CpuWindow;
  setupMs: number;
  /** the webhook's CPU profile over the storm (--profile) */
  profile?: string;
}

async function prepare(rig: Rig, c: Client, ns: string, cfg: StormConfig) {
  const t0 = Date.now();
  await createPods(c, ns, [
    { prefix: 'p', count: cfg.pods, labels: { app: 'storm' } },
    { prefix: 'warm', count: cfg.clients, labels: { app: 'warm' } },
  ]);
  await waitAvailable(c, ns, 'app=storm', cfg.pods, cfg.readyTimeoutMs);
  rig.log(`${ns}: ${cfg.pods} pods Ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await createProtector(c, ns, 'storm', 'storm', cfg.minAvailable);
  await waitAggregated(c, ns, 'storm', cfg.pods, 60_000);
  rig.log(`${ns}: protector aggregated ${cfg.pods} available`);
  return Date.now() - t0;
}

/** Wait until the aggregator has folded every admission into its counts (or give up). */
async function settle(c: Client, ns: string, timeoutMs: number): Promise<Summary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await protectorSummary(c, ns, 'storm');
    if (s.aggregatedAvailableReplicas === s.estimatedAvailableReplicas || Date.now() > deadline) return s;
    await sleep(250);
  }
}

async function configure(rig: Rig, batching: boolean, keepAlive: boolean) {
  await Promise.all([rig.webhook.call('batching', batching), rig.webhook.call('keepAlive', keepAlive)]);
}

export async function stormPhase(
  rig: Rig,
  cfg: StormConfig,
  v: StormVariant,
  seed: number,
): Promise<StormResult> {
  const { ns } = v;
  const c = new Client(rig.endpoint, cfg.clients);
  try {
    const setupMs = await prepare(rig, c, ns, cfg);
    await configure(rig, v.batching, v.keepAlive);
    await warm(c, ns, 'warm', cfg.clients);
    await Promise.all([rig.webhook.call('reset'), rig.aggregator.call('reset')]);
    const [w0, a0] = await Promise.all([
      rig.webhook.call<WebhookStats>('stats'),
      rig.aggregator.call<AggregatorStats>('stats'),
    ]);
    rig.cpu.begin();
    const [run, profile] = await profiled(rig, v.label, () =>
      storm(c, ns, 'p', targets(cfg.pods, cfg.deletes, seed), cfg.clients),
    );
    const cpu = rig.cpu.end();
    const [w1, a1] = await Promise.all([
      rig.webhook.call<WebhookStats>('stats'),
      rig.aggregator.call<AggregatorStats>('stats'),
    ]);
    await configure(rig, true, false);
    const after = await census(c, ns, 'app=storm');
    const settled = await settle(c, ns, 15_000);
    // a protector's violations have its key (namespace/name) as subject
    const violations = (await rig.cluster.call<Violation[]>('violations')).filter(
      (x) => x.subject === `${ns}/storm`,
    );
    return {
      ...v,
      run,
      tally: tally(run, cfg.pods, cfg.minAvailable),
      after,
      settled,
      violations,
      webhook: {
        reviews: w1.decisions,
        httpMs: w1.httpMs,
        connections: w1.connections,
        apiMs: w1.apiMs,
        cpuMs: cpuMs(w0.cpu, w1.cpu),
        writes: w1.statusWrites,
        rounds: w1.rounds,
      },
      aggregator: { cpuMs: cpuMs(a0.cpu, a1.cpu), writes: a1.statusWrites },
      cpu,
      setupMs,
      ...(profile ? { profile } : {}),
    };
  } finally {
    c.close();
  }
}
