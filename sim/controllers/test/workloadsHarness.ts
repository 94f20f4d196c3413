// Test harness for the workload controllers: the embedded API server, the controllers
// under test, and a stand-in kubelet that binds pods, reports them Running/Ready with
// an IP, and (when told to) finishes their graceful deletion with grace 0.
import * as k8s from '@kubernetes/client-node';
import { type Cluster, createNamespace, startCluster } from '../../apiserver/test/harness.js';
import { type Controller, type ControllerContext, makeContext, statusCode } from '../runtime/context.js';
import { scaled } from '../runtime/durations.js';
import { SupervisedInformer } from '../runtime/informer.js';
import { mergePatch } from '../runtime/patches.js';
import { WorkQueue } from '../runtime/queue.js';
import { underTest } from './besideReal.js';
import { FakeKubelets } from './controlPlaneHarness.js';

/** the one node the stand-in kubelet binds every pod to */
export const NODE = 'node-1';
/** its Lease renewals: well inside the default 40 s node-monitor grace period */
const NODE_RENEW_MS = 2_000;

export interface Workloads {
  c: Cluster;
  ctx: ControllerContext;
  kubelet: TestKubelet;
  stop(): Promise<void>;
}

export async function startWorkloads(controllers: Controller[], namespaces: string[]): Promise<Workloads> {
  const c = await startCluster();
  for (const name of namespaces) await createNamespace(c, name);
  // the node every pod is bound to exists and stays healthy: a real control plane skips pods
  // of a missing node in EndpointSlices, garbage-collects them, and marks a silent node's pods NotReady
  const nodes = new FakeKubelets(c, c.kc.makeApiClient(k8s.CoordinationV1Api), NODE_RENEW_MS);
  await nodes.addNode(NODE);
  const ctx = makeContext(c.kc, scaled({}));
  controllers = underTest(controllers);
  for (const ctl of controllers) ctl.register(ctx);
  // the tests watch these; beside a real control plane no simulated controller has asked
  // for them, and informers asked for later would never start
  void [ctx.informers.deployments, ctx.informers.replicaSets, ctx.informers.endpointSlices];
  const kubelet = new TestKubelet(c);
  await Promise.all([ctx.informers.startAll(), kubelet.start()]);
  for (const ctl of controllers) ctl.start();
  return {
    c,
    ctx,
    kubelet,
    async stop() {
      for (const ctl of controllers) ctl.stop();
      nodes.stop();
      await Promise.all([ctx.informers.stopAll(), kubelet.stop()]);
      await c.stop();
    },
  };
}

const isReady = (p: k8s.V1Pod) =>
  p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');

/** Plays every kubelet at once, through the API only. */
export class TestKubelet {
  readonly pods: SupervisedInformer<k8s.V1Pod>;
  /** pods to keep Running but not Ready */
  holdReady: (p: k8s.V1Pod) => boolean = () => false;
  /** Running -> Ready after this long */
  readyAfterMs = 0;
  /** which terminating pods to finish (delete with grace 0), as a kubelet does when the containers stopped */
  finish: (p: k8s.V1Pod) => boolean = () => false;
  private readonly runningSince = new Map<string, number>();
  private nextIp = 1;
  private readonly queue = new WorkQueue((key) => this.handle(key));

  constructor(private readonly c: Cluster) {
    this.pods = new SupervisedInformer(c.kc, '/api/v1/pods', () => c.core.listPodForAllNamespaces());
    const poke = (p: k8s.V1Pod) => this.queue.add(`${p.metadata?.namespace}/${p.metadata?.name}`);
    this.pods.on({ add: poke, update: poke });
  }

  async start() {
    await this.pods.start();
    await this.pods.synced();
  }

  async stop() {
    this.queue.stop();
    await this.pods.stop();
  }

  /** Re-evaluate every pod (after changing holdReady or finish). */
  resync() {
    for (const p of this.pods.list()) this.queue.add(`${p.metadata?.namespace}/${p.metadata?.name}`);
  }

  list(namespace: string, filter: (p: k8s.V1Pod) => boolean = () => true) {
    return this.pods.list(namespace).filter(filter);
  }

  private async handle(key: string) {
    const [namespace, name] = key.split('/');
    const p = this.pods.get(name, namespace);
    if (!p) return;
    try {
      if (p.metadata?.deletionTimestamp) {
        if (this.finish(p)) await this.c.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
      } else if (!p.spec?.nodeName) await this.bind(p);
      else if (p.status?.phase === 'Pending') await this.run(p);
      else if (p.status?.phase === 'Running' && !isReady(p)) await this.makeReady(p, key);
    } catch (err) {
      if (statusCode(err) !== 404 && statusCode(err) !== 409) throw err;
    }
  }

  private bind(p: k8s.V1Pod) {
    const { name, namespace } = p.metadata as { name: string; namespace: string };
    return this.c.core.createNamespacedBinding({
      namespace,
      body: { metadata: { name }, target: { kind: 'Node', name: NODE } },
    });
  }

  private async run(p: k8s.V1Pod) {
    this.runningSince.set(p.metadata!.uid!, Date.now());
    const n = this.nextIp++;
    await this.status(
      p,
      { phase: 'Running', podIP: `10.244.${n >> 8}.${n & 255}`, startTime: new Date() },
      false,
    );
  }

  private async makeReady(p: k8s.V1Pod, key: string) {
    if (this.holdReady(p)) return;
    const wait = (this.runningSince.get(p.metadata!.uid!) ?? 0) + this.readyAfterMs - Date.now();
    if (wait > 0) return this.queue.addAfter(key, wait);
    await this.status(p, {}, true);
  }

  private status(p: k8s.V1Pod, extra: k8s.V1PodStatus, ready: boolean) {
    const now = new Date();
    const cond = (type: string, status: boolean) => ({
      type,
      status: status ? 'True' : 'False',
      lastTransitionTime: now,
    });
    const conditions = [
      cond('PodScheduled', true),
      cond('Initialized', true),
      cond('ContainersReady', ready),
      cond('Ready', ready),
    ];
    const { name, namespace } = p.metadata as { name: string; namespace: string };
    return this.c.core.patchNamespacedPodStatus(
      { name, namespace, body: { status: { ...extra, conditions } } },
      mergePatch,
    );
  }
}

/** A container spec small enough for every test template. */
export const container = (image = 'nginx:1.25'): k8s.V1Container => ({ name: 'app', image });
