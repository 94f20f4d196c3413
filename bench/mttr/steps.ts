// What every case does. t = 0 is the partition of the node running the workload's pod (its
// processes keep running and writing: only the API is cut off); the partition lands at a random
// point of one Lease renewal interval, as a real failure would. MTTR = the first moment a
// replacement pod (new uid) is Ready on another node with its RWO volume attached there.
import * as k8s from '@kubernetes/client-node';
import { createAll } from '../../sim/cluster.js';
import { workloadObjects } from '../../sim/scenario/build.js';
import { NS, type Profile, STS } from './profiles.js';
import {
  addNodeAfter,
  attachedTo,
  nodeUnknown,
  type Rig,
  replacementRunning,
  runningPod,
  sleep,
} from './rig.js';

export interface Sample {
  /** ms from the partition; undefined = not recovered within windowMs */
  mttrMs?: number;
  windowMs: number;
  /** named moments, ms from the partition */
  phases: Record<string, number>;
  violations: string[];
}

export const since = (t0: number, t?: number) => (t === undefined ? undefined : t - t0);

/** Wait until `app` runs with its volume attached; returns that pod. */
async function settled(rig: Rig, app: string): Promise<k8s.V1Pod> {
  const inf = rig.cluster.context.informers;
  const name = `${app}:settled`;
  rig.marks.watch(name, () => !!runningPod(inf, NS, app));
  if ((await rig.marks.until(name, 90_000)) === undefined) throw new Error(`${app} never started`);
  return runningPod(inf, NS, app)!;
}

/**
 * Put the StatefulSet (and `deployments`) on a node booted at a random point of the longest
 * controller period (the others cordoned meanwhile), and wait until they run there.
 */
export async function place(rig: Rig, p: Profile, deployments: string[] = []) {
  const node = await addNodeAfter(rig, Math.random() * p.spreadMs);
  await cordonAllBut(rig, node, true);
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
  await createAll(rig.cluster.kc, [ns, ...rig.scenario.workloads.flatMap(workloadObjects)]);
  for (const app of deployments) {
    const [pvc, dep] = deploymentWithClaim(app);
    await rig.core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: pvc });
    await rig.apps.createNamespacedDeployment({ namespace: NS, body: dep });
  }
  const olds: k8s.V1Pod[] = [];
  for (const app of [STS, ...deployments]) olds.push(await settled(rig, app));
  await cordonAllBut(rig, node, false);
  return { node, olds };
}

export async function partitionAtRandom(rig: Rig, p: Profile, nodes: string[]): Promise<number> {
  await sleep(Math.random() * p.renewMs);
  const t0 = Date.now();
  for (const n of nodes) rig.cluster.infra.partition(n);
  return t0;
}

/** Stamp when the node is Unknown, the old pod gone, its volume off the node, the replacement up. */
export function watchRecovery(rig: Rig, app: string, old: k8s.V1Pod, prefix = '') {
  const inf = rig.cluster.context.informers;
  const node = old.spec!.nodeName!;
  const uid = old.metadata!.uid!;
  const claim = old.spec!.volumes!.find((v) => v.persistentVolumeClaim)!.persistentVolumeClaim!.claimName;
  const oldPod = () => inf.pods.list(NS).find((x) => x.metadata?.uid === uid);
  rig.marks.watch(`${prefix}unknown`, () => nodeUnknown(inf, node));
  rig.marks.watch(`${prefix}evicted`, () => !!oldPod()?.metadata?.deletionTimestamp || !oldPod());
  rig.marks.watch(`${prefix}podGone`, () => !oldPod());
  rig.marks.watch(`${prefix}replaced`, () =>
    inf.pods
      .list(NS)
      .some((x) => x.metadata?.labels?.app === app && x.metadata?.uid !== uid && !!x.spec?.nodeName),
  );
  rig.marks.watch(`${prefix}detached`, () => !attachedTo(inf, NS, claim, node));
  rig.marks.watch(`${prefix}running`, () => replacementRunning(inf, NS, app, uid, node));
}

export function relative(rig: Rig, t0: number, prefix = ''): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, t] of rig.marks.at)
    if (k.startsWith(prefix) && !k.endsWith(':settled')) out[k.slice(prefix.length)] = t - t0;
  return out;
}

export const violationsOf = (rig: Rig) => {
  rig.cluster.checker.evaluate();
  return rig.cluster.checker.list().map((v) => `${v.invariant} ${v.subject}: ${v.message}`);
};

/** A one-replica Deployment whose pod mounts its own RWO claim (the scenario schema has no such field). */
function deploymentWithClaim(app: string): [k8s.V1PersistentVolumeClaim, k8s.V1Deployment] {
  const claim = `${app}-data`;
  const labels = { app };
  return [
    {
      metadata: { name: claim, namespace: NS },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'san-rwo',
        resources: { requests: { storage: '1Gi' } },
      },
    },
    {
      metadata: { name: app, namespace: NS, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'app',
                image: 'registry.example/app:1.0',
                resources: { requests: { cpu: '100m', memory: '128Mi' } },
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
              },
            ],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
          },
        },
      },
    },
  ];
}

/** Cordon (or uncordon) every node but `home`, so the workloads created meanwhile land on it. */
async function cordonAllBut(rig: Rig, home: string, cordon: boolean) {
  for (const n of rig.cluster.context.informers.nodes.list()) {
    const name = n.metadata!.name!;
    if (name === home) continue;
    await rig.core.patchNode(
      { name, body: { spec: { unschedulable: cordon } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }
}
