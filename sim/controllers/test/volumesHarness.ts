// Test harness for the volume controllers: an embedded API server, the PV binder and
// the attach/detach controller, and helpers that play the parts no test here runs:
// the scheduler (pods get spec.nodeName directly) and the kubelet (node conditions
// and node.status.volumesInUse are set by the test).
import * as k8s from '@kubernetes/client-node';
import { type Cluster, eventually, startCluster } from '../../apiserver/test/harness.js';
import { AttachDetachController } from '../attachDetach.js';
import { underTest } from './besideReal.js';
import { PvBinder } from '../pvBinder.js';
import { type ControllerContext, makeContext } from '../runtime/context.js';
import { CSI_DRIVER, uniqueVolumeName } from '../runtime/conventions.js';
import { ANN_CONTROLLER_MANAGED_ATTACH } from '../../../lib/kube/wellKnown.js';
import { type Durations, scaled } from '../runtime/durations.js';
import { mergePatch } from '../runtime/patches.js';

export const NS = 'default';

export interface VolumesEnv {
  cluster: Cluster;
  ctx: ControllerContext;
  core: k8s.CoreV1Api;
  storage: k8s.StorageV1Api;
  binder: PvBinder;
  adc: AttachDetachController;
  stop(): Promise<void>;
}

export async function startVolumes(d: Partial<Durations> = {}): Promise<VolumesEnv> {
  const durations = scaled({
    forceDetachTimeoutMs: 2000,
    attachDelayMs: 100,
    forceDetachEnabled: true,
    ...d,
  });
  const cluster = await startCluster({ durations });
  const ctx = makeContext(cluster.kc, durations);
  const binder = new PvBinder();
  const adc = new AttachDetachController();
  const controllers = underTest([binder, adc]);
  for (const c of controllers) c.register(ctx);
  await ctx.informers.startAll();
  for (const c of controllers) c.start();
  return {
    cluster,
    ctx,
    core: cluster.core,
    storage: cluster.kc.makeApiClient(k8s.StorageV1Api),
    binder,
    adc,
    stop: async () => {
      for (const c of controllers) c.stop();
      await ctx.informers.stopAll();
      await cluster.stop();
    },
  };
}

export async function addNode(env: VolumesEnv, name: string, labels: Record<string, string> = {}) {
  const body: k8s.V1Node = {
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, ...labels },
      // as a kubelet registers: kube-controller-manager attaches only for nodes that say so
      annotations: { [ANN_CONTROLLER_MANAGED_ATTACH]: 'true' },
    },
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
  };
  const node = await env.core.createNode({ body });
  // status is the kubelet's to write, through the status subresource
  await env.core.patchNodeStatus({ name, body: { status: body.status } }, mergePatch);
  return node;
}

/** Play the kubelet: report the node Ready/NotReady. */
export function setReady(env: VolumesEnv, name: string, status: 'True' | 'False' | 'Unknown') {
  const body = { status: { conditions: [{ type: 'Ready', status, reason: 'Test' }] } };
  return env.core.patchNodeStatus({ name, body }, mergePatch);
}

/** Play the kubelet: the volumes mounted on the node (node.status.volumesInUse). */
export function setVolumesInUse(env: VolumesEnv, name: string, pvs: string[]) {
  const body = { status: { volumesInUse: pvs.length ? pvs.map(uniqueVolumeName) : null } };
  return env.core.patchNodeStatus({ name, body }, mergePatch);
}

export function taint(env: VolumesEnv, name: string, key: string, value: string, effect = 'NoExecute') {
  const body = { spec: { taints: [{ key, value, effect }] } };
  return env.core.patchNode({ name, body }, mergePatch);
}

export function addStorageClass(env: VolumesEnv, name: string, extra: Partial<k8s.V1StorageClass> = {}) {
  return env.storage.createStorageClass({
    body: { metadata: { name }, provisioner: CSI_DRIVER, volumeBindingMode: 'Immediate', ...extra },
  });
}

export const zones = (...terms: string[][]): k8s.V1TopologySelectorTerm[] =>
  terms.map((values) => ({ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values }] }));

export function addClaim(
  env: VolumesEnv,
  name: string,
  opts: {
    storageClassName?: string;
    modes?: string[];
    size?: string;
    annotations?: Record<string, string>;
  } = {},
) {
  return env.core.createNamespacedPersistentVolumeClaim({
    namespace: NS,
    body: {
      metadata: { name, annotations: opts.annotations },
      spec: {
        storageClassName: opts.storageClassName,
        accessModes: opts.modes ?? ['ReadWriteOnce'],
        resources: { requests: { storage: opts.size ?? '1Gi' } },
      },
    },
  });
}

/** A pod the "scheduler" already placed on `node`, mounting `claims`. */
export function addPod(env: VolumesEnv, name: string, node: string, claims: string[]) {
  return env.core.createNamespacedPod({
    namespace: NS,
    body: {
      metadata: { name },
      spec: {
        nodeName: node,
        containers: [{ name: 'app', image: 'busybox' }],
        volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
      },
    },
  });
}

/**
 * Play the kubelet: the pod's container is running. kube-controller-manager counts a
 * Terminating pod with no running container as terminated and lets its volumes go.
 */
export function setRunning(env: VolumesEnv, name: string) {
  const running = { name: 'app', image: 'busybox', imageID: '', ready: true, restartCount: 0 };
  const state = { running: { startedAt: new Date() } };
  const body = { status: { phase: 'Running', containerStatuses: [{ ...running, state }] } };
  return env.core.patchNamespacedPodStatus({ name, namespace: NS, body }, mergePatch);
}

/** A claim's PV name once bound. */
export async function boundVolume(env: VolumesEnv, claim: string): Promise<string> {
  return eventually(async () => {
    const c = await env.core.readNamespacedPersistentVolumeClaim({ name: claim, namespace: NS });
    return c.status?.phase === 'Bound' && c.spec?.volumeName;
  }, `claim ${claim} bound`);
}

export async function attachments(env: VolumesEnv, pv: string) {
  const all = await env.storage.listVolumeAttachment();
  return all.items.filter((va) => va.spec.source.persistentVolumeName === pv);
}

export async function eventsFor(env: VolumesEnv, kind: string, name: string, reason?: string) {
  const all = await env.core.listNamespacedEvent({ namespace: NS });
  return all.items.filter(
    (e) =>
      e.involvedObject.kind === kind && e.involvedObject.name === name && (!reason || e.reason === reason),
  );
}

/** Wait until `pv` is attached to `node`: VolumeAttachment attached and listed on the node. */
export async function attachedTo(env: VolumesEnv, pv: string, node: string) {
  await eventually(async () => {
    const vas = await attachments(env, pv);
    const n = await env.core.readNode({ name: node });
    const listed = (n.status?.volumesAttached ?? []).some((v) => v.name === uniqueVolumeName(pv));
    return vas.some((va) => va.spec.nodeName === node && va.status?.attached) && listed;
  }, `${pv} attached to ${node}`);
}

export async function detached(env: VolumesEnv, pv: string) {
  await eventually(async () => (await attachments(env, pv)).length === 0, `${pv} detached`);
}

/** Remove a pod object at once, as the kubelet does once its containers are gone. */
export function removePod(env: VolumesEnv, name: string) {
  return env.core.deleteNamespacedPod({ name, namespace: NS, gracePeriodSeconds: 0 });
}
