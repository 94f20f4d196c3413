// The embedded cluster in a process of its own, for `npm start` (server/main.ts starts it). The
// console's memory is then its own (bench/memory: the cluster adds 120-140 MiB), and the two
// talk only through the Kubernetes API and the files beside the kubeconfig, as in a real
// installation. Options come as one JSON argument; progress and the outcome go to the console
// over the IPC channel ({ log }, { ready } or { error }). It stops on SIGTERM or SIGINT, and when
// the console goes away without a word (the IPC channel closes: a SIGKILLed console).
import { z } from 'zod';
import { startEmbeddedCluster } from './cluster.js';
import { ipmiAvailable } from './infra/ipmi/bmcs.js';
import { loadScenario } from './scenario/load.js';

export const childOptions = z.object({
  scenario: z.string().min(1),
  backend: z.enum(['embedded', 'real']),
  kubeconfigPath: z.string().min(1),
  demoFencePolicy: z.boolean(),
  contextName: z.string().min(1).optional(),
  /** at most this many nodes get a real BMC (an ipmi_sim process each) */
  maxIpmiNodes: z.number().int().nonnegative(),
});
export type ChildOptions = z.infer<typeof childOptions>;

export type ChildMessage = { log: string } | { ready: true } | { error: string };

const send = (m: ChildMessage) => process.send?.(m);

const nodeCount = (s: { nodes: { zones: { racks: { count: number }[] }[] } }) =>
  s.nodes.zones.reduce((n, z) => n + z.racks.reduce((m, r) => m + r.count, 0), 0);

let started: Promise<{ stop(): Promise<void> }> | undefined;
let stopping = false;

/** Stop once: after the cluster's start has finished (or failed), so no process it began leaks. */
function stop() {
  if (stopping) return;
  stopping = true;
  void (started ?? Promise.resolve(undefined))
    .then((c) => c?.stop())
    .catch(() => undefined)
    .finally(() => process.exit(process.exitCode ?? 0));
}

async function main() {
  // the console may go away while the cluster is still starting: stop as soon as it has
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  const parsed = childOptions.safeParse(JSON.parse(process.argv[2] ?? '{}'));
  if (!parsed.success) throw new Error(`embedded cluster options: ${parsed.error.issues[0]?.message}`);
  const o = parsed.data;
  const scenario = await loadScenario(o.scenario);
  started = startEmbeddedCluster({
    scenario,
    backend: o.backend,
    ipmi: ipmiAvailable() && nodeCount(scenario) <= o.maxIpmiNodes,
    demoFencePolicy: o.demoFencePolicy,
    contextName: o.contextName,
    kubeconfigPath: o.kubeconfigPath,
    log: (m) => send({ log: m }),
  });
  await started;
  if (!stopping) send({ ready: true });
}

main().catch((e) => {
  send({ error: (e as Error).message });
  process.exitCode = 1;
  // the IPC channel keeps the process alive: let go of it once the message is out
  setTimeout(() => process.disconnect?.(), 100).unref();
});
