// Loading the cluster straight through the Kubernetes API (no controllers, no kubelets:
// at this size they would take minutes), then keeping its Leases fresh.
import { performance } from 'node:perf_hooks';
import { MERGE, ensureNamespace, poolNote } from '../common.js';
import { nodeStatusPatch } from '../fixtures.js';
import { type Client, type PoolResult, runPool } from '../http.js';
import {
  LEASE_NS,
  type Shape,
  WORKLOAD_PODS,
  consoleNodeBody,
  consolePodBody,
  leaseBody,
  nodeName,
  namespaceOf,
  podRef,
  podStatus,
  workload,
  workloadBody,
  workloadPath,
} from './fixtures.js';

export interface LoadResult {
  ms: number;
  notes: string[];
}

const CONCURRENCY = 64;
/** per kind loaded (bench:memory's 150 000 pods on a busy machine take longer) */
const BUDGET_MS = 300_000;

async function pool(
  what: string,
  count: number,
  task: (i: number) => Promise<number>,
  notes: string[],
  budgetMs = BUDGET_MS,
) {
  const r: PoolResult = await runPool({ count, concurrency: CONCURRENCY, budgetMs }, task);
  notes.push(`${what}: ${poolNote(r)} in ${(r.elapsedMs / 1000).toFixed(1)} s`);
  if (r.ok !== count)
    throw new Error(`loading ${what}: only ${r.ok} of ${count} (${r.firstError ?? 'out of time'})`);
}

async function loadWorkloads(c: Client, s: Shape, notes: string[]): Promise<string[]> {
  const uids: string[] = [];
  const count = Math.ceil(s.pods / WORKLOAD_PODS);
  await pool(
    'workloads (ReplicaSets, StatefulSets)',
    count,
    async (w) => {
      const wl = workload(s, w);
      const r = await c.expect(201, 'POST', workloadPath(wl), { body: workloadBody(wl) });
      uids[w] = JSON.parse(r.body.toString('utf8')).metadata.uid;
      return r.totalMs;
    },
    notes,
  );
  return uids;
}

async function loadNode(c: Client, s: Shape, i: number, now: number): Promise<number> {
  const a = await c.expect(201, 'POST', '/api/v1/nodes', { body: consoleNodeBody(s, i), discard: true });
  const b = await c.expect(200, 'PATCH', `/api/v1/nodes/${nodeName(i)}/status`, {
    body: nodeStatusPatch(i),
    contentType: MERGE,
    discard: true,
  });
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NS}/leases`;
  const l = await c.expect(201, 'POST', leases, { body: leaseBody(i, now), discard: true });
  return a.totalMs + b.totalMs + l.totalMs;
}

async function loadPod(c: Client, s: Shape, i: number, uids: string[]): Promise<number> {
  const ref = podRef(s, i);
  const base = `/api/v1/namespaces/${ref.namespace}/pods`;
  const uid = uids[Math.floor(i / WORKLOAD_PODS)];
  const a = await c.expect(201, 'POST', base, { body: consolePodBody(s, i, uid), discard: true });
  const b = await c.expect(200, 'PATCH', `${base}/${ref.name}/status`, {
    body: podStatus(s, i, true),
    contentType: MERGE,
    discard: true,
  });
  return a.totalMs + b.totalMs;
}

/** Namespaces, workloads, nodes with their status and Lease, then bound, Running, Ready pods. */
export async function loadCluster(c: Client, s: Shape, budgetMs = BUDGET_MS): Promise<LoadResult> {
  const t0 = performance.now();
  const notes: string[] = [];
  for (let n = 0; n < s.namespaces; n++) await ensureNamespace(c, namespaceOf(s, n));
  const uids = await loadWorkloads(c, s, notes);
  const now = Date.now();
  await pool('nodes (create, status, Lease)', s.nodes, (i) => loadNode(c, s, i, now), notes, budgetMs);
  await pool('pods (create, status)', s.pods, (i) => loadPod(c, s, i, uids), notes, budgetMs);
  return { ms: performance.now() - t0, notes };
}
