// What one API call costs the embedded cluster, measured apart from it: an API server
// and a client-node client in one process, as in the cluster, renewing node Leases with
// merge patches at the kubelet fleet's concurrency (16). Twice: as sim/ makes its clients
// (client-node 1.x gives every request a new https.Agent, so a new TLS connection and
// handshake), and with one shared keep-alive agent. The difference explains most of the
// cluster's CPU. Runs in its own child (`node --import tsx bench/cluster/client-cost.ts`)
// so nothing else competes for its loop; run.ts forks it before the cluster.
import { performance } from 'node:perf_hooks';
import * as k8s from '@kubernetes/client-node';
import { startApiServer } from '../../sim/apiserver/index.js';
import { Clients } from '../../sim/controllers/runtime/context.js';
import { mergePatch } from '../../sim/controllers/runtime/patches.js';
import type { ClientCost } from './protocol.js';
import { microTime } from '../../lib/protection/buckets.js';

const NS = 'kube-node-lease';
const LEASES = 100;
const CONCURRENCY = 16;

async function renewals(coord: k8s.CoordinationV1Api, variant: string, n: number): Promise<ClientCost> {
  let next = 0;
  const cpu = process.cpuUsage();
  const t = performance.now();
  const worker = async () => {
    while (next < n) {
      const name = `node-${next++ % LEASES}`;
      // a MicroTime, six fractional digits, as a kubelet writes it (the API server refuses fewer)
      const body = { spec: { holderIdentity: name, renewTime: microTime(Date.now()) } };
      await coord.patchNamespacedLease({ name, namespace: NS, body }, mergePatch);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return {
    variant,
    requests: n,
    perSec: n / (ms / 1000),
    cpuMsPerRequest: (used.user + used.system) / 1000 / n,
  };
}

async function main() {
  const n = Number(process.argv[2] ?? 1000);
  const server = await startApiServer({ port: 0 });
  const plainKc = new k8s.KubeConfig();
  plainKc.loadFromString(server.kubeconfig);
  const sharedKc = new k8s.KubeConfig();
  sharedKc.loadFromString(server.kubeconfig);
  // client-node alone gives every request a new https.Agent; sim/'s Clients share one per kubeconfig
  const plain = plainKc.makeApiClient(k8s.CoordinationV1Api);
  const shared = new Clients(sharedKc).coordination;
  for (let i = 0; i < LEASES; i++)
    await shared.createNamespacedLease({ namespace: NS, body: { metadata: { name: `node-${i}` } } });
  // warm both paths (JIT, TLS session caches) before measuring
  await renewals(plain, 'warm-up', 200);
  await renewals(shared, 'warm-up', 200);
  const results = [
    await renewals(plain, 'client-node alone (a new https.Agent per request)', n),
    await renewals(shared, 'as sim/ makes clients: one shared keep-alive https.Agent per kubeconfig', n),
  ];
  process.send?.({ type: 'client-cost', results });
  await server.stop();
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
