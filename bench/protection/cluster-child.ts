// The embedded cluster for the deletion-storm bench, alone in its process (so the
// webhook's CPU is not mixed with the API server's): `startEmbeddedCluster` with N nodes
// and pods that start in a fraction of a second, no workloads. Answers the protection
// checker's violations (the cluster's own judge of "no API deletion below the floor"), and
// how long its API server's calls to the webhook take, seen from the API server.
// Run by bench/protection/run.ts as `node --import tsx bench/protection/cluster-child.ts <nodes> <podsPerNode> [embedded|real]`;
// with `real` the simulated nodes run on etcd + kube-apiserver + kube-controller-manager (testenv/),
// and the API server's webhook calls are kube-apiserver's own, not timed here.
import { mkdtempSync } from 'node:fs';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClusterBackend, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { cpuNow, fail, guard, serve } from './serve.js';

// pods start in a fraction of a second; node heartbeats stay at their defaults so the
// background load of the API server is what a quiet cluster's is
function scenarioYaml(nodes: number, podsPerNode: number) {
  return `
name: protection-bench
description: deletion-storm bench, ${nodes} nodes of ${podsPerNode} pods
durations:
  containerStart: 100ms
  podReadyDelay: 200ms
  podGcInterval: 500ms
nodes:
  cpu: "64"
  memory: 256Gi
  pods: ${podsPerNode}
  zones:
    - name: zone-a
      racks: [{ name: a1, count: ${nodes} }]
workloads: []
`;
}

/**
 * API server -> webhook round trips (request to last byte of the answer), in ms, for pods
 * not yet terminating: a kubelet's final DELETE of a pod whose grace period ran out is
 * reviewed too, but it is nobody's DELETE request waiting.
 */
const webhookCalls: number[] = [];

function timeWebhookCalls() {
  const request = https.request;
  (https as any).request = function (this: unknown, ...args: any[]) {
    const o = args[0];
    const req = (request as (...a: unknown[]) => ReturnType<typeof https.request>).apply(this, args);
    if (!o || typeof o !== 'object' || !String(o.path).startsWith('/admission/')) return req;
    const t0 = performance.now();
    let final = false;
    const end = req.end;
    req.end = function (this: unknown, ...a: any[]) {
      final = typeof a[0] === 'string' && a[0].includes('"deletionTimestamp"');
      return end.apply(this, a as never);
    } as typeof req.end;
    req.on('response', (res) =>
      res.on('end', () => {
        if (!final) webhookCalls.push(performance.now() - t0);
      }),
    );
    return req;
  };
}

async function main() {
  const nodes = Number(process.argv[2] ?? 20);
  const podsPerNode = Number(process.argv[3] ?? 60);
  const backend = (process.argv[4] ?? 'embedded') as ClusterBackend;
  timeWebhookCalls();
  const dir = mkdtempSync(join(tmpdir(), 'palisade-protection-bench-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const cluster = await startEmbeddedCluster({
    scenario: parseScenario(scenarioYaml(nodes, podsPerNode), 'bench/protection'),
    port: 0,
    kubeconfigPath,
    backend,
  });
  serve(
    { kubeconfigPath },
    {
      cpu: () => cpuNow(),
      webhookCalls: (reset) => {
        const out = [...webhookCalls];
        if (reset) webhookCalls.length = 0;
        return out;
      },
      violations: () => cluster.protection.list().map((v) => ({ subject: v.subject, message: v.message })),
    },
    () => cluster.stop(),
  );
}

guard();
main().catch(fail);
