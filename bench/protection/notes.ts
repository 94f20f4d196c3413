// The words around the storm bench's figures: how it was set up, and what the figures say.
import { percentile } from '../http.js';
import { fmt, passes, type Row } from '../report.js';
import type { Config } from './config.js';
import type { StormResult } from './stormPhase.js';
import type { LatencySeries } from './unprotected.js';
import { admittedByWebhook, judged, okWrites } from './report.js';

export interface Results {
  on: StormResult;
  off: StormResult;
  whatIf?: StormResult;
  u: LatencySeries;
}

export function setup(cfg: Config): string[] {
  const s = cfg.storm;
  return [
    `Cluster: \`startEmbeddedCluster()\` alone in a child process (\`node --import tsx bench/protection/cluster-child.ts\`), ${cfg.nodes} nodes of ${cfg.podsPerNode} pods, containers start in 100 ms and turn Ready 200 ms later; default node heartbeats. Its API server keeps its connections to the webhook alive, as kube-apiserver does.`,
    'Deletion protection one component per process, as Podseidon deploys it, both loading the cluster from its kubeconfig file as the console does (`clustersFromKubeconfig`): the webhook (protector store, `Admission` with its RetryBatch, `startWebhook`, registered with `registerWebhook`, wired as server/protection/service.ts wires them) and the aggregator (`startProtection()` with its own webhook unregistered and no generator; update trigger every 1 s). Default history config (aggregationRateMillis 500, maxConcurrentLag 0). The load generator is the parent process.',
    `Phases, in order: unprotected DELETEs (which also warm the API server and the webhook), the storm, the storm with batching off${cfg.whatIfStorm ? ', the what-if storm' : ''}; each storm on a fresh namespace.`,
    `Unprotected DELETE: ${cfg.unprotected} pods the webhook is called for (no protector selects them) and ${cfg.unprotected} control pods its objectSelector leaves out (label podseidon.kubewharf.io/release-id=palisade), deleted alternately one at a time after 5 warm-up pairs; added latency = a percentile with the webhook - the same percentile of the control.`,
    `Storm: ${s.pods} bare pods (no controller to recreate them; terminationGracePeriodSeconds 1) under one PodProtector, minAvailable ${s.minAvailable}, minReadySeconds 0; the storm starts once the protector's status says ${s.pods} aggregated and estimated. ${s.deletes} DELETEs from ${s.clients} concurrent keep-alive connections (raw \`node:https\`, opened before the storm), each pod targeted ${Math.ceil(s.deletes / s.pods)} times in a seeded random order, so later DELETEs meet pods already admitted, terminating or gone.`,
    "Over-admission is counted twice: distinct pods that got a 200 beyond the quota (pods - minAvailable), and the API's count of available pods right after the last answer, below minAvailable; the cluster's protection checker (sim/checker/protection.ts) judges it a third time.",
    "Admissions per status write: distinct pods the webhook admitted through the RetryBatch / successful PodProtector status writes by the webhook (its metrics, reset before the storm). Admission latency: `Admission.decide()` timed inside the webhook process for the reviews the RetryBatch judged (pods already terminating are answered before it and left out). Webhook CPU: `process.cpuUsage()` of the webhook process over the storm / reviews it answered. Status write latency: the webhook's `replaceNamespacedCustomObjectStatus` calls, timed in the webhook.",
    "Batching off: the same storm, the webhook letting one request per protector into the RetryBatch at a time (a gate in front of `RetryBatch.submit`, in the bench's webhook process only), so each round judges one request and writes once.",
    ...(cfg.whatIfStorm
      ? [
          "What-if storm (batching on): the webhook's client-node calls to the API server on one shared keep-alive agent (patched into the webhook process). As built, server/kube gives client-node no agent, so every status write and every read after a conflict opens a new TLS connection to the API server.",
        ]
      : []),
    "All processes share the machine's 2 cores with each other and with other agents' work: each phase notes who used the CPU.",
  ];
}

const p = (v: number[], q: number) => percentile(v, q);
const ms = (v: number) => `${v.toFixed(1)} ms`;

function latencyCause(s: StormResult): string {
  const times = judged(s).map((r) => r.ms);
  const w = s.webhook.apiMs.write;
  const fast = judged(s)
    .filter((r) => r.code === 429)
    .map((r) => r.ms);
  const denied = fast.length ? `; reviews answered 429 from the cached copy p99 ${ms(p(fast, 99))}` : '';
  return [
    `${s.label}: admission p99 ${ms(p(times, 99))} against the webhook's status writes`,
    `p50 ${ms(p(w, 50))} / p99 ${ms(p(w, 99))} through the API server${denied}.`,
    "A review that arrives while its protector's round is writing waits for that write (RetryBatch, as in Podseidon),",
    `so the admission p99 is the status write's latency under the storm, not the webhook's own work (p50 ${ms(p(times, 50))}).`,
  ].join(' ');
}

function unprotectedCause(u: LatencySeries): string {
  const added = (q: number) => p(u.webhookMs, q) - p(u.controlMs, q);
  const pair = (v: number[]) => `${ms(p(v, 50))} at p50 (${ms(p(v, 99))} at p99)`;
  const busy = ((100 * (u.cpu.used.cluster ?? 0)) / u.cpu.wallMs).toFixed(0);
  // on the real control plane kube-apiserver makes the calls, in its own process
  if (!u.apiServerCallMs.length)
    return [
      `An unprotected DELETE pays ${ms(added(50))} at p50 and ${ms(added(99))} at p99 for the webhook.`,
      `The webhook's own handling takes ${pair(u.webhookHttpMs)}; called straight from the bench the round trip is ${pair(u.directMs)};`,
      'the rest is kube-apiserver calling the webhook and finishing the DELETE, in its own process, under the same load.',
    ].join(' ');
  return [
    `An unprotected DELETE pays ${ms(added(50))} at p50 and ${ms(added(99))} at p99 for the webhook.`,
    `The webhook's own handling takes ${pair(u.webhookHttpMs)}; called straight from the bench the round trip is ${pair(u.directMs)};`,
    `seen from the API server the same call takes ${pair(u.apiServerCallMs)}. The difference is waiting for the cluster`,
    `process's event loop, which the API server shares with every controller and kubelet (${busy} % of a core busy in this`,
    'phase, deleting pods one at a time), to read the answer and finish the DELETE.',
  ].join(' ');
}

export function observations(rows: Row[], r: Results): string[] {
  const out = rows
    .filter((x) => passes(x) === false)
    .map(
      (x) =>
        `Target missed: ${x.section} / ${x.metric}: ${fmt(x.value)} ${x.unit} (target ${x.target!.op} ${fmt(x.target!.value)} ${x.unit}).`,
    );
  const { on, off, whatIf, u } = r;
  out.push(
    `Batching turned ${okWrites(off)} status writes into ${okWrites(on)} for ${admittedByWebhook(on)} admissions (${admittedByWebhook(off)} without batching). The first admission of a storm is written alone (a round starts as soon as a request arrives, no cold-start delay, as in Podseidon); the rest join the rounds that queue behind it.`,
  );
  out.push(latencyCause(on));
  if (whatIf) out.push(latencyCause(whatIf));
  out.push(unprotectedCause(u));
  const warning = sharedMachine(r);
  if (warning) out.push(warning);
  return out;
}

/** A warning when other processes took a large share of the cores during a phase. */
export function sharedMachine(r: Results) {
  const windows = [r.on.cpu, r.off.cpu, ...(r.whatIf ? [r.whatIf.cpu] : []), r.u.cpu];
  const worst = Math.max(...windows.map((w) => (100 * w.othersMs) / Math.max(1, w.wallMs)));
  if (worst <= 25) return undefined;
  return `**Shared machine:** other processes (other agents' work) took up to ${worst.toFixed(0)} % of one core during a phase, of the 200 % the 2 cores give; the latencies are pessimistic and vary from run to run.`;
}
