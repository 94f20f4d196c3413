// One embedded cluster per repetition, optionally with Palisade's fencing controller on it (as
// server/fencing/service.ts runs it: the console's ClusterConnection, default verify window),
// and Marks: named moments, each stamped the first time its predicate holds, judged on every
// pod, node and VolumeAttachment event of the cluster's shared informers (so no polling delay).
import * as k8s from '@kubernetes/client-node';
import { GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import { ClusterConnection } from '../../server/kube/connection.js';
import { ControllerRuntime } from '../../server/runtime/runtime.js';
import { AgentUnavailable } from '../../server/fencing/agents.js';
import { FencingController } from '../../server/fencing/controller.js';
import { createLogger } from '../../server/log.js';
import { type EmbeddedCluster, startEmbeddedCluster } from '../../sim/cluster.js';
import { parseScenario } from '../../sim/scenario/load.js';
import { nodeSpecs } from '../../sim/scenario/build.js';
import type { Scenario } from '../../sim/scenario/schema.js';
import type { Informers } from '../../sim/controllers/runtime/context.js';

export class Marks {
  readonly at = new Map<string, number>();
  private readonly preds = new Map<string, () => boolean>();
  private readonly waiters: { name: string; done: (t: number) => void }[] = [];

  constructor(inf: Informers) {
    const check = () => this.check();
    for (const i of [inf.pods, inf.nodes, inf.volumeAttachments])
      i.on({ add: check, update: check, delete: check });
  }

  /** Stamp `name` the first time `pred` holds (checked now and on every event). */
  watch(name: string, pred: () => boolean) {
    this.preds.set(name, pred);
    this.check();
  }

  set(name: string, t = Date.now()) {
    if (!this.at.has(name)) this.at.set(name, t);
    for (const w of this.waiters.filter((x) => x.name === name)) w.done(t);
  }

  /** When `name` was stamped, or undefined if not within `ms`. */
  until(name: string, ms: number): Promise<number | undefined> {
    const seen = this.at.get(name);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ms);
      this.waiters.push({
        name,
        done: (t) => {
          clearTimeout(timer);
          resolve(t);
        },
      });
    });
  }

  private check() {
    for (const [name, pred] of this.preds) {
      if (this.at.has(name) || !pred()) continue;
      this.set(name);
    }
  }
}

export interface Rig {
  cluster: EmbeddedCluster;
  scenario: Scenario;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  marks: Marks;
  /** with a policy: the console's connection and its fencing controller */
  conn?: ClusterConnection;
  controller?: FencingController;
  stop(): Promise<void>;
}

const noExec = () => {
  throw new AgentUnavailable('the MTTR bench uses the built-in power agent');
};

/**
 * A cluster with the scenario's nodes and storage classes but not its workloads (the case
 * creates them where it wants them); with `policy`, Palisade fences under that FencePolicy.
 */
export async function startRig(yaml: string, policy?: Record<string, unknown>): Promise<Rig> {
  const scenario = parseScenario(yaml, 'mttr scenario');
  const cluster = await startEmbeddedCluster({ scenario, workloads: false });
  const marks = new Marks(cluster.context.informers);
  let conn: ClusterConnection | undefined;
  let controller: FencingController | undefined;
  let runtime: ControllerRuntime | undefined;
  if (policy) {
    // the controller's trouble on stderr, readable, as before
    const logger = createLogger({
      level: 'warn',
      format: 'pretty',
      destination: { write: (line: string) => void process.stderr.write(line) },
    });
    conn = new ClusterConnection(
      {
        id: 'bench',
        context: 'bench',
        kc: cluster.kc,
        infra: { url: cluster.infraApi.url, token: cluster.infraApi.token },
      },
      undefined,
      logger,
    );
    conn.start();
    controller = new FencingController({ conn, exec: noExec, logger });
    controller.start();
    // the controller acts only under a term of the controller Lease, as server/fencing/service.ts
    // runs it: one console, so it leads at once
    runtime = new ControllerRuntime({ logger });
    runtime.manager(conn.spec).add(controller.loop);
    await Promise.all([conn.synced(), controller.synced()]);
    await cluster.kc.makeApiClient(k8s.CustomObjectsApi).createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: POLICY_PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'FencePolicy',
        metadata: { name: 'mttr' },
        spec: policy,
      },
    });
  }
  return {
    cluster,
    scenario,
    core: cluster.kc.makeApiClient(k8s.CoreV1Api),
    apps: cluster.kc.makeApiClient(k8s.AppsV1Api),
    marks,
    conn,
    controller,
    async stop() {
      await controller?.stop();
      await runtime?.stop();
      await conn?.stop();
      await cluster.stop();
    },
  };
}

/**
 * Boot one more node `delayMs` after the cluster and wait until it is Ready. The scenario's
 * kubelets boot with the controllers, so their Lease renewals tick in lock-step with the node
 * monitor and the pod GC sweep and every wait between them would come out the same each time;
 * a node booted at a random moment has the independent phase a real node has.
 */
export async function addNodeAfter(rig: Rig, delayMs: number): Promise<string> {
  await sleep(delayMs);
  const template = nodeSpecs(rig.scenario)[0];
  const name = 'late-1';
  rig.cluster.fleet.addNode({ ...template, name, ip: '198.51.100.250' });
  const inf = rig.cluster.context.informers;
  const ready = () =>
    !!inf.nodes.get(name)?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  rig.marks.watch('late-node:settled', ready);
  if ((await rig.marks.until('late-node:settled', 60_000)) === undefined)
    throw new Error(`${name} never Ready`);
  return name;
}

// ---- what the marks look at -----------------------------------------------------------------

const ready = (p?: k8s.V1Pod) =>
  !!p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
  !p.metadata?.deletionTimestamp;

export const nodeUnknown = (inf: Informers, node: string) =>
  inf.nodes.get(node)?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'Unknown') ?? false;

/** The PV bound to a claim, and whether it is attached to `node` (status.attached). */
export function attachedTo(inf: Informers, ns: string, claim: string, node: string): boolean {
  const pv = inf.pvcs.get(claim, ns)?.spec?.volumeName;
  return inf.volumeAttachments
    .list()
    .some(
      (va) =>
        va.spec.source.persistentVolumeName === pv && va.spec.nodeName === node && !!va.status?.attached,
    );
}

/** A pod of `app` that is not `oldUid`, Ready off `badNode`, with its claim attached where it runs. */
export function replacementRunning(inf: Informers, ns: string, app: string, oldUid: string, badNode: string) {
  return inf.pods.list(ns).some((p) => {
    if (p.metadata?.labels?.app !== app || p.metadata?.uid === oldUid || !ready(p)) return false;
    const node = p.spec?.nodeName ?? '';
    const claim = p.spec?.volumes?.find((v) => v.persistentVolumeClaim)?.persistentVolumeClaim?.claimName;
    return node !== badNode && !!claim && attachedTo(inf, ns, claim, node);
  });
}

/** The one Ready pod of `app` with its volume attached, once there is one. */
export function runningPod(inf: Informers, ns: string, app: string): k8s.V1Pod | undefined {
  return inf.pods.list(ns).find((p) => {
    const claim = p.spec?.volumes?.find((v) => v.persistentVolumeClaim)?.persistentVolumeClaim?.claimName;
    return (
      p.metadata?.labels?.app === app && ready(p) && !!claim && attachedTo(inf, ns, claim, p.spec!.nodeName!)
    );
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
