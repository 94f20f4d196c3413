// Helpers shared by the bench phases.
import { readFileSync } from 'node:fs';
import type { Client, PoolResult } from './http.js';
import { percentile } from './http.js';
import type { ServerStats } from './protocol.js';

export const MERGE = 'application/merge-patch+json';
export const STRATEGIC = 'application/strategic-merge-patch+json';

/** Share of one core the server used between two stats readings. */
export function cpuPercent(before: ServerStats, after: ServerStats, wallMs: number): number {
  const used = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  return wallMs > 0 ? (100 * used) / wallMs : 0;
}

export function rate(r: PoolResult): number {
  return r.elapsedMs > 0 ? r.ok / (r.elapsedMs / 1000) : 0;
}

/** "p50 4.1 ms, p99 12 ms" plus failures and time-outs, when there were any. */
export function poolNote(r: PoolResult): string {
  const parts = [
    `${r.ok} ok`,
    `p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms`,
    `p99 ${percentile(r.latenciesMs, 99).toFixed(1)} ms`,
  ];
  if (r.failed) parts.push(`${r.failed} failed (${r.firstError})`);
  if (r.timedOut) parts.push('time budget ran out');
  return parts.join(', ');
}

export async function ensureNamespace(c: Client, name: string) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await c.expect([201, 409], 'POST', '/api/v1/namespaces', { body });
  await defaultServiceAccount(c, name);
}

/**
 * A real kube-apiserver refuses pods in a namespace until kube-controller-manager made its
 * `default` ServiceAccount (ServiceAccount admission). Where the cluster has one in
 * `default`, wait for the new namespace's too.
 */
async function defaultServiceAccount(c: Client, ns: string, timeoutMs = 30_000) {
  const sa = (n: string) => `/api/v1/namespaces/${n}/serviceaccounts/default`;
  if ((await c.request('GET', sa('default'), { discard: true })).status !== 200) return;
  const deadline = Date.now() + timeoutMs;
  while ((await c.request('GET', sa(ns), { discard: true })).status !== 200) {
    if (Date.now() > deadline)
      throw new Error(`no default ServiceAccount in ${ns} after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface HostCpu {
  busyMs: number;
  stealMs: number;
}

/** CPU time used by every process on the machine so far, from /proc/stat (Linux only). */
export function hostCpu(): HostCpu | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    // USER_HZ is 100 on every mainstream Linux build
    return { busyMs: (user + nice + system + irq + softirq) * 10, stealMs: steal * 10 };
  } catch {
    return undefined;
  }
}
