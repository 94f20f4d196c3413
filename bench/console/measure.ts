// Turning the recorded sends, acknowledgements and DOM times into figures.
import { percentile } from '../http.js';
import type { ProbeRecords } from './probe.js';
import type { UpdateRun } from './traffic.js';

export interface Latencies {
  sent: number;
  acked: number;
  matched: number;
  /** ack -> DOM, send -> DOM, ack -> next animation frame (ms) */
  fromAck: number[];
  fromSend: number[];
  toFrame: number[];
  ackMs: number[];
  /** acknowledged updates per second, first send to last acknowledgement */
  rate: number;
}

export function latencies(run: UpdateRun, rec: ProbeRecords): Latencies {
  const l: Latencies = {
    sent: run.updates.length,
    acked: 0,
    matched: 0,
    fromAck: [],
    fromSend: [],
    toFrame: [],
    ackMs: [],
    rate: 0,
  };
  for (const u of run.updates) {
    if (!u.ok) continue;
    l.acked++;
    l.ackMs.push(u.ackAt - u.sentAt);
    const dom = rec.dom[u.node]?.[u.k - 1];
    if (!dom) continue;
    l.matched++;
    l.fromAck.push(dom - u.ackAt);
    l.fromSend.push(dom - u.sentAt);
    const frame = rec.frame[u.node]?.[u.k - 1];
    if (frame) l.toFrame.push(frame - u.ackAt);
  }
  const span = run.lastAck - run.firstSend;
  l.rate = span > 0 ? l.acked / (span / 1000) : 0;
  return l;
}

/** Whether every acknowledged update has reached the DOM. */
export function allSeen(run: UpdateRun, rec: ProbeRecords): boolean {
  return run.updates.every((u) => !u.ok || !!rec.dom[u.node]?.[u.k - 1]);
}

export interface Spread {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function spread(v: number[]): Spread {
  return {
    p50: percentile(v, 50),
    p95: percentile(v, 95),
    p99: percentile(v, 99),
    max: v.length ? Math.max(...v) : Number.NaN,
  };
}

export interface LongTasks {
  count: number;
  totalMs: number;
  maxMs: number;
  /** share of the window the main thread spent in long tasks, percent */
  busyPct: number;
}

export function longTasks(rec: ProbeRecords, from: number, to: number): LongTasks {
  const inWindow = rec.longTasks.filter(([at]) => at >= from && at <= to);
  const totalMs = inWindow.reduce((s, [, d]) => s + d, 0);
  return {
    count: inWindow.length,
    totalMs,
    maxMs: inWindow.length ? Math.max(...inWindow.map(([, d]) => d)) : 0,
    busyPct: to > from ? (100 * totalMs) / (to - from) : 0,
  };
}

export function median(v: number[]): number {
  return percentile(v, 50);
}
