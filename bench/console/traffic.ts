// What keeps the cluster moving while the browser watches: Lease renewals (so nodes stay
// Ready on the map) and the measured load, readiness flips at a fixed rate.
import { performance } from 'node:perf_hooks';
import { MERGE, sleep } from '../common.js';
import type { Client } from '../http.js';
import { LEASE_NS, type Shape, nodeName, podRef, podStatus, renewPatch } from './fixtures.js';

/** Wall-clock ms with sub-ms resolution, comparable with the page's timeOrigin + now(). */
export const wallNow = () => performance.timeOrigin + performance.now();

/** Renews every node's Lease once per period, spread evenly over it, as kubelets do. */
export class Heartbeats {
  renewed = 0;
  failed = 0;
  private next = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly c: Client,
    private readonly nodes: number,
    periodMs = 10_000,
  ) {
    const tickMs = 100;
    const perTick = Math.ceil(nodes / (periodMs / tickMs));
    this.timer = setInterval(() => {
      for (let n = 0; n < perTick; n++) this.renew(this.next++ % this.nodes);
    }, tickMs);
  }

  private renew(i: number) {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NS}/leases/${nodeName(i)}`;
    this.c
      .expect(200, 'PATCH', path, { body: renewPatch(Date.now()), contentType: MERGE, discard: true })
      .then(
        () => this.renewed++,
        () => this.failed++,
      );
  }

  stop() {
    clearInterval(this.timer);
  }
}

export interface Update {
  node: string;
  /** after this update, the node shows k pods Running but not Ready */
  k: number;
  sentAt: number;
  ackAt: number;
  ok: boolean;
}

export interface UpdateRun {
  updates: Update[];
  firstSend: number;
  lastAck: number;
  firstError?: string;
}

export interface RateConfig {
  rate: number;
  count: number;
  maxInFlight: number;
}

/**
 * Flips pods 0, 1, 2, ... to Running-not-Ready at `rate` per second. Pod u sits on node
 * u % nodes, so consecutive updates hit different nodes and each node's count of
 * not-Ready pods only grows: the k-th update of a node is visible once its tile says
 * "k Running". Hence count <= pods.
 */
export async function flipReadiness(c: Client, s: Shape, cfg: RateConfig): Promise<UpdateRun> {
  const run: UpdateRun = { updates: [], firstSend: wallNow(), lastAck: 0 };
  const inflight = new Set<Promise<void>>();
  const t0 = performance.now();
  let next = 0;
  while (next < cfg.count) {
    const due = Math.min(cfg.count, Math.floor(((performance.now() - t0) * cfg.rate) / 1000) + 1);
    while (next < due && inflight.size < cfg.maxInFlight) {
      const p = send(c, s, next++, run).finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await sleep(1);
  }
  await Promise.all(inflight);
  return run;
}

async function send(c: Client, s: Shape, u: number, run: UpdateRun) {
  const ref = podRef(s, u);
  const path = `/api/v1/namespaces/${ref.namespace}/pods/${ref.name}/status`;
  const update: Update = {
    node: ref.node,
    k: Math.floor(u / s.nodes) + 1,
    sentAt: wallNow(),
    ackAt: 0,
    ok: false,
  };
  run.updates.push(update);
  try {
    await c.expect(200, 'PATCH', path, { body: podStatus(s, u, false), contentType: MERGE, discard: true });
    update.ok = true;
  } catch (e) {
    run.firstError ??= (e as Error).message;
  }
  update.ackAt = wallNow();
  run.lastAck = Math.max(run.lastAck, update.ackAt);
}
