// The cluster side of the bench: runs `startEmbeddedCluster` alone in this process (so
// its RSS is the cluster's), and reports to the parent over IPC what its own informers
// and ground truth see, once a second. It never exits by itself: the parent ends it.
// Run by bench/cluster/run.ts as `node --expose-gc --import tsx bench/cluster/child.ts [--quick]`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import * as k8s from '@kubernetes/client-node';
import { startEmbeddedCluster } from '../../sim/cluster.js';
import { Informers } from '../../sim/controllers/runtime/context.js';
import { nodeReady } from '../../sim/controllers/runtime/conventions.js';
import { KubeletFleet } from '../../sim/kubelet/fleet.js';
import { durationsOf } from '../../sim/scenario/build.js';
import type { ChildMessage, Final, ParentMessage, Sample, Target } from './protocol.js';
import { benchScenario, nodeCount, podCount } from './scenario.js';

const SAMPLE_MS = 1_000;

function send(m: ChildMessage) {
  process.send?.(m);
}

function fail(e: unknown) {
  const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
  send({ type: 'error', message });
  // give the IPC channel a moment to carry the message before dying
  setTimeout(() => process.exit(1), 200);
}

const loop = monitorEventLoopDelay({ resolution: 10 });
const lostReady = new Set<string>();

function nodeCounts(nodes: k8s.V1Node[]): Sample['nodes'] {
  const out = { registered: nodes.length, ready: 0, unknown: 0, notReady: 0 };
  for (const n of nodes) {
    const r = nodeReady(n);
    if (r === 'True') out.ready++;
    else if (r === 'Unknown') out.unknown++;
    else out.notReady++;
  }
  return out;
}

function podCounts(pods: k8s.V1Pod[]): Sample['pods'] {
  const out = { total: pods.length, scheduled: 0, running: 0, ready: 0 };
  for (const p of pods) {
    if (p.spec?.nodeName) out.scheduled++;
    if (p.status?.phase !== 'Running') continue;
    out.running++;
    if (p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) out.ready++;
  }
  return out;
}

/**
 * What the bench reads, caught as startEmbeddedCluster() builds it: the controllers'
 * informers (the first set started) and the kubelet fleet. startEmbeddedCluster() only
 * returns once every workload is created, which at scale takes minutes; waiting for it
 * would leave the whole boot unobserved.
 */
interface Seen {
  informers?: Informers;
  fleet?: KubeletFleet;
}

const seen: Seen = {};

function observeConstruction() {
  const startAll = Informers.prototype.startAll;
  Informers.prototype.startAll = function (this: Informers) {
    if (!seen.informers) {
      seen.informers = this;
      watchReadiness(this);
    }
    return startAll.call(this);
  };
  const start = KubeletFleet.prototype.start;
  KubeletFleet.prototype.start = function (this: KubeletFleet) {
    seen.fleet ??= this;
    return start.call(this);
  };
}

function processCount(fleet: KubeletFleet): number {
  let n = 0;
  for (const node of fleet.infra.list()) n += fleet.infra.truth.runningCount(node.name);
  return n;
}

const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);

function sample(): Sample {
  const mem = process.memoryUsage();
  const inf = seen.informers;
  const fleet = seen.fleet;
  const s: Sample = {
    at: Date.now(),
    nodes: inf ? nodeCounts(inf.nodes.list()) : { registered: 0, ready: 0, unknown: 0, notReady: 0 },
    nodesLostReady: lostReady.size,
    pods: inf ? podCounts(inf.pods.list()) : { total: 0, scheduled: 0, running: 0, ready: 0 },
    processes: fleet ? processCount(fleet) : 0,
    fleetQueue: fleet?.queue.length ?? 0,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    loopP50Ms: ms(loop.percentile(50)),
    loopP99Ms: ms(loop.percentile(99)),
    loopMaxMs: ms(loop.max),
  };
  loop.reset();
  return s;
}

/** A node that was Ready and is no longer (e.g. set to Unknown by the node lifecycle controller). */
function watchReadiness(informers: Informers) {
  informers.nodes.on({
    update: (n, old) => {
      if (nodeReady(old) === 'True' && nodeReady(n) !== 'True') lostReady.add(n.metadata!.name!);
    },
  });
}

function collect(): Final {
  const gc = (globalThis as { gc?: () => void }).gc;
  const t = performance.now();
  // twice: the first pass may only queue weak callbacks and finalizers
  gc?.();
  gc?.();
  const gcMs = performance.now() - t;
  const mem = process.memoryUsage();
  return {
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    heapTotal: mem.heapTotal,
    external: mem.external,
    arrayBuffers: mem.arrayBuffers,
    maxRss: process.resourceUsage().maxRSS * 1024,
    heapLimit: getHeapStatistics().heap_size_limit,
    gcForced: !!gc,
    gcMs,
  };
}

/** A CPU profile of the next `ms` milliseconds, taken in-process so no other window pays for it. */
function profile(label: string, ms: number) {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (err, res) => (err ? reject(err) : resolve(res))),
    );
  void (async () => {
    await post('Profiler.enable');
    await post('Profiler.start');
    await new Promise((r) => setTimeout(r, ms));
    const { profile } = (await post('Profiler.stop')) as { profile: object };
    session.disconnect();
    const path = join(tmpdir(), `palisade-cluster-bench-${label}-${process.pid}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    send({ type: 'profiled', label, path });
  })().catch(fail);
}

function onParent(m: ParentMessage) {
  if (m.type === 'final') send({ type: 'final', final: collect() });
  else if (m.type === 'profile') profile(m.label, m.ms);
  else if (m.type === 'exit') process.exit(0);
}

/**
 * What-if for --shared-agent: the fix this bench suggests for sim/, applied here without
 * touching sim/. client-node 1.x gives every request a new https.Agent (a new TLS
 * connection each time); this gives each KubeConfig one keep-alive agent instead.
 */
function shareAgents() {
  const agents = new WeakMap<k8s.KubeConfig, https.Agent>();
  const original = k8s.KubeConfig.prototype.applySecurityAuthentication;
  k8s.KubeConfig.prototype.applySecurityAuthentication = async function (context) {
    await original.call(this, context);
    let agent = agents.get(this);
    if (!agent) {
      const ca = this.getCurrentCluster()?.caData;
      agent = new https.Agent({ keepAlive: true, ca: ca ? Buffer.from(ca, 'base64') : undefined });
      agents.set(this, agent);
    }
    context.setAgent(agent);
  };
}

async function main() {
  const quick = process.argv.includes('--quick');
  if (process.argv.includes('--shared-agent')) shareAgents();
  const scenario = await benchScenario(quick);
  const d = durationsOf(scenario);
  const target: Target = {
    scenario: scenario.name,
    nodes: nodeCount(scenario),
    pods: podCount(scenario),
    leaseRenewIntervalMs: d.leaseRenewIntervalMs,
    nodeMonitorGracePeriodMs: d.nodeMonitorGracePeriodMs,
    nodeStatusUpdateMs: d.nodeStatusUpdateMs,
  };
  const kubeconfigPath = join(mkdtempSync(join(tmpdir(), 'palisade-cluster-bench-')), 'kubeconfig');
  process.on('message', (m) => onParent(m as ParentMessage));
  loop.enable();
  observeConstruction();
  setInterval(() => send({ type: 'sample', sample: sample() }), SAMPLE_MS);
  const startAt = Date.now();
  await startEmbeddedCluster({
    scenario,
    port: 0,
    kubeconfigPath,
    log: (msg) => {
      send({ type: 'log', at: Date.now(), msg });
      // the API server writes the kubeconfig before it logs, so the parent can connect now
      if (msg.startsWith('API server ready'))
        send({ type: 'api', at: Date.now(), kubeconfigPath, startAt, target });
    },
  });
  send({ type: 'started', at: Date.now() });
}

process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
// the parent went away: nobody will ever stop us
process.on('disconnect', () => process.exit(0));
main().catch(fail);
