// Deletion protection for the storm bench, one component per process as Podseidon deploys
// them, so the webhook's CPU is the webhook's alone:
// - `webhook`: the protector store, Admission (RetryBatch) and the HTTPS listener, built
//   exactly as server/protection/service.ts builds them, and registered on the cluster;
// - `aggregator`: `startProtectionAlone()` (server/protection/test/standalone.ts) with its webhook left unregistered and no generator,
//   i.e. the aggregator and the update trigger that keep protector status current.
// Both load the cluster from its kubeconfig file as the console does (clustersFromKubeconfig).
// The webhook carries the bench's instruments (instrument.ts).
// Run by bench/protection/run.ts as `node --import tsx bench/protection/protection-child.ts <role> <kubeconfig>`.
import * as k8s from '@kubernetes/client-node';
import { clustersFromKubeconfig } from '../../server/kube/kubeconfig.js';
import { Admission } from '../../server/protection/admission.js';
import { DecisionLog } from '../../server/protection/decisions.js';
import { protectionMetrics } from '../../server/protection/metrics.js';
import { ProtectorStore } from '../../server/protection/protectors.js';
import { registerWebhook } from '../../server/protection/register.js';
import { admissionHandler } from '../../server/protection/review.js';
import { InformerRegistry } from '../../server/kube/informer.js';
import { startWebhook } from '../../server/webhook/listener.js';
import { createLogger } from '../../server/log.js';
import {
  byLabel,
  instrumentWebhook,
  Profiler,
  probe,
  resetProbe,
  rounds,
  toggleableAgent,
  writesBy,
} from './instrument.js';
import type { AggregatorStats, WebhookStats } from './protocol.js';
import { cpuNow, fail, guard, serve } from './serve.js';
import { startProtectionAlone } from '../../server/protection/test/standalone.js';

/** trouble only, readable, on stderr: stdout is the parent's to echo, IPC its protocol */
const logger = createLogger({
  level: 'warn',
  format: 'pretty',
  destination: { write: (line: string) => void process.stderr.write(line) },
});

async function webhook(kubeconfigPath: string) {
  instrumentWebhook();
  const [spec] = await clustersFromKubeconfig(kubeconfigPath);
  toggleableAgent(spec.kc);
  const cellId = spec.context;
  const metrics = protectionMetrics();
  const decisions = new DecisionLog();
  const store = new ProtectorStore(new InformerRegistry(spec.kc), logger);
  store.onChange((key, e) => e && decisions.observe(key, e.protector));
  store.start();
  const admission = new Admission(spec.kc, store, metrics, decisions);
  const cells = new Map([[cellId, { id: cellId, core: spec.kc.makeApiClient(k8s.CoreV1Api) }]]);
  // direct.ts posts reviews itself, without a client certificate
  const clientAuth = { required: false } as const;
  const server = await startWebhook({
    handlers: { admission: admissionHandler({ admission, cells, metrics }) },
    cells: new Set(cells.keys()),
    onRefused: (reason) => metrics.refusedCallers.inc({ reason }),
    port: 0,
    host: '127.0.0.1',
    clientAuth,
    logger,
  });
  await store.whenSynced();
  // enforced at once, as a leader would after its self-probe (the aggregator child labels the
  // storm's namespace before its protector's first status: the webhook matches only such)
  await registerWebhook(
    spec.kc,
    `${server.url}/admission/${encodeURIComponent(cellId)}`,
    server.caPem,
    'Fail',
  );
  const profiler = new Profiler();
  serve(
    {},
    {
      profileStart: () => profiler.start(),
      profileStop: (label) => profiler.stop(String(label)),
      batching: (on) => (probe.batching = !!on),
      keepAlive: (on) => (probe.shareAgent = !!on),
      reset: () => {
        resetProbe();
        metrics.statusWrites.reset();
        metrics.batchSize.reset();
      },
      stats: async (): Promise<WebhookStats> => ({
        cpu: cpuNow(),
        decisions: probe.decisions,
        httpMs: probe.httpMs,
        connections: probe.connections,
        apiMs: probe.apiMs,
        statusWrites: await writesBy(metrics, 'webhook'),
        rounds: await rounds(metrics),
      }),
    },
    async () => {
      admission.stop();
      await store.stop();
      await server.stop();
    },
  );
}

async function aggregator(kubeconfigPath: string) {
  const clusters = await clustersFromKubeconfig(kubeconfigPath);
  const p = await startProtectionAlone({
    config: {
      webhook: { port: 0, host: '127.0.0.1', register: false },
      generator: { enabled: false, workloadSelector: '' },
      aggregator: {
        protectorSelector: '',
        updateTrigger: { enabled: true, namespace: 'default', intervalMillis: 1000 },
      },
    },
    clusters,
    logger,
  });
  serve(
    {},
    {
      reset: () => {
        p.metrics.statusWrites.reset();
        p.metrics.reconciles.reset();
      },
      stats: async (): Promise<AggregatorStats> => ({
        cpu: cpuNow(),
        statusWrites: await writesBy(p.metrics, 'aggregator'),
        reconciles: await byLabel(p.metrics.reconciles, 'outcome'),
      }),
    },
    () => p.stop(),
  );
}

guard();
const [role, kubeconfigPath] = process.argv.slice(2);
(role === 'webhook' ? webhook(kubeconfigPath) : aggregator(kubeconfigPath)).catch(fail);
