// The scheduler against the embedded API server: spreading, capacity, node selectors,
// affinity and taints, PV node affinity and WaitForFirstConsumer provisioning, and the
// Unschedulable condition and FailedScheduling event when nothing fits.
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../apiserver/test/harness.js';
import { NodeLifecycleController } from '../nodeLifecycle.js';
import { mergePatch } from '../runtime/patches.js';
import { ANN_SELECTED_NODE, Scheduler } from '../scheduler.js';
import {
  type ControlPlane,
  conditionOf,
  cpuPod,
  pod,
  startControlPlane,
  untilSchedulable,
} from './controlPlaneHarness.js';

let cp: ControlPlane;
const ns = 'default';
const ZONE = 'topology.kubernetes.io/zone';
const dedicated: k8s.V1Taint = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };

beforeAll(async () => {
  cp = await startControlPlane([
    new Scheduler({ initialBackoffMs: 200, maxBackoffMs: 1_000 }),
    // nodes register with the not-ready NoSchedule taint (TaintNodesByCondition); the node
    // lifecycle controller lifts it once it sees them Ready, as on a real control plane
    new NodeLifecycleController(),
  ]);
  await cp.kubelets.addNode('s1', { cpu: '2', labels: { [ZONE]: 'a' } });
  await cp.kubelets.addNode('s2', { cpu: '2', labels: { [ZONE]: 'b' } });
  await cp.kubelets.addNode('s3', { cpu: '2', labels: { [ZONE]: 'b' }, taints: [dedicated] });
  await untilSchedulable(cp, 's1', 's2', 's3');
});
afterAll(() => cp?.stop());

const create = (body: k8s.V1Pod) => cp.c.core.createNamespacedPod({ namespace: ns, body });
const read = (name: string) => cp.c.core.readNamespacedPod({ name, namespace: ns });
const boundTo = (name: string) =>
  eventually(async () => (await read(name)).spec?.nodeName, `${name} bound`, 30_000) as Promise<string>;

async function unschedulable(name: string) {
  const p = await eventually(async () => {
    const x = await read(name);
    return conditionOf(x, 'PodScheduled')?.status === 'False' ? x : undefined;
  }, `${name} Unschedulable`);
  expect(p.spec?.nodeName).toBeUndefined();
  const c = conditionOf(p, 'PodScheduled')!;
  expect(c.reason).toBe('Unschedulable');
  const events = await eventually(async () => {
    const list = await cp.c.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=${name},reason=FailedScheduling`,
    });
    return list.items.length ? list.items : undefined;
  }, 'FailedScheduling event');
  expect(events[0]).toMatchObject({
    type: 'Warning',
    message: c.message,
    source: { component: 'default-scheduler' },
  });
  return c.message;
}

describe('scheduler', () => {
  it('spreads, fits CPU requests, reports why nothing fits, and retries when a node appears', async () => {
    await create(cpuPod('big1', '1500m'));
    await create(cpuPod('big2', '1500m'));
    expect([await boundTo('big1'), await boundTo('big2')]).toEqual(['s1', 's2']);
    // the scheduler records its Event after the binding, as kube-scheduler does: wait for it
    const scheduled = await eventually(async () => {
      const list = await cp.c.core.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'involvedObject.name=big1,reason=Scheduled',
      });
      return list.items[0];
    }, 'the Scheduled Event of big1');
    expect(scheduled.message).toBe('Successfully assigned default/big1 to s1');

    await create(cpuPod('big3', '1500m'));
    expect(await unschedulable('big3')).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 2 Insufficient cpu.',
    );
    await cp.kubelets.addNode('s4', { cpu: '4', labels: { [ZONE]: 'c' } });
    await untilSchedulable(cp, 's4');
    expect(await boundTo('big3')).toBe('s4');
    expect(conditionOf(await read('big3'), 'PodScheduled')?.status).toBe('True');
  });

  it('honours nodeSelector, required node affinity and tolerations', async () => {
    await create(pod('in-b', { spec: { nodeSelector: { [ZONE]: 'b' } } }));
    expect(await boundTo('in-b')).toBe('s2');
    await create(
      pod('db', {
        spec: { nodeSelector: { [ZONE]: 'b' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
      }),
    );
    expect(await boundTo('db')).toBe('s3');
    const notAOrB = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'NotIn', values: ['a', 'b'] }] }],
        },
      },
    };
    await create(pod('elsewhere', { spec: { affinity: notAOrB } }));
    expect(await boundTo('elsewhere')).toBe('s4');
    await create(pod('nowhere', { spec: { nodeSelector: { [ZONE]: 'z' } } }));
    expect(await unschedulable('nowhere')).toBe(
      "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 3 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  it('follows a bound PV node affinity and waits for unbound Immediate claims', async () => {
    await createPv('pv-s2', 's2');
    await createPvc('data-s2', { volumeName: 'pv-s2', storageClassName: '' });
    await create(withClaim('uses-s2', 'data-s2'));
    expect(await boundTo('uses-s2')).toBe('s2');

    await createPvc('later', { storageClassName: '' });
    await create(withClaim('waits', 'later'));
    expect(await unschedulable('waits')).toBe(
      '0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
    );
    await createPv('pv-s4', 's4');
    await patchPvc('later', { spec: { volumeName: 'pv-s4' } });
    expect(await boundTo('waits')).toBe('s4');

    await create(withClaim('no-claim', 'nope'));
    expect(await unschedulable('no-claim')).toBe(
      '0/4 nodes are available: persistentvolumeclaim "nope" not found.',
    );
  });

  it('selects a node for a WaitForFirstConsumer claim, then binds the pod where the volume was made', async () => {
    await createClass('zone-a-only', 'a');
    await createPvc('wffc', { storageClassName: 'zone-a-only' });
    await create(withClaim('consumer', 'wffc'));
    const pvc = await eventually(async () => {
      const c = await cp.c.core.readNamespacedPersistentVolumeClaim({ name: 'wffc', namespace: ns });
      return c.metadata?.annotations?.[ANN_SELECTED_NODE] ? c : undefined;
    }, 'selected-node annotation');
    expect(pvc.metadata?.annotations?.[ANN_SELECTED_NODE]).toBe('s1');
    expect((await read('consumer')).spec?.nodeName).toBeUndefined();
    // the provisioner's part: a volume on the selected node, bound to the claim
    await createPv('pv-wffc', 's1');
    await patchPvc('wffc', { spec: { volumeName: 'pv-wffc' } });
    expect(await boundTo('consumer')).toBe('s1');

    await createClass('zone-q-only', 'q');
    await createPvc('nowhere-data', { storageClassName: 'zone-q-only' });
    await create(withClaim('no-topology', 'nowhere-data'));
    expect(await unschedulable('no-topology')).toBe(
      "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 3 node(s) didn't find available persistent volumes to bind.",
    );
  });
});

function withClaim(name: string, claimName: string): k8s.V1Pod {
  return pod(name, { spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } });
}

async function createPv(name: string, host: string) {
  await cp.c.core.createPersistentVolume({
    body: {
      metadata: { name },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        csi: { driver: 'sim.palisade.dev', volumeHandle: name },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] },
            ],
          },
        },
      },
    },
  });
}

async function createPvc(name: string, spec: Partial<k8s.V1PersistentVolumeClaimSpec>) {
  await cp.c.core.createNamespacedPersistentVolumeClaim({
    namespace: ns,
    body: {
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
    },
  });
}

async function patchPvc(name: string, body: object) {
  await cp.c.core.patchNamespacedPersistentVolumeClaim({ name, namespace: ns, body }, mergePatch);
}

async function createClass(name: string, zone: string) {
  await cp.storage.createStorageClass({
    body: {
      metadata: { name },
      provisioner: 'sim.palisade.dev',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: [zone] }] }],
    },
  });
}
