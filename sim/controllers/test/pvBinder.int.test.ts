// PV binder and provisioner against the embedded API server: dynamic provisioning
// (Immediate and WaitForFirstConsumer with node affinity), binding to pre-created
// volumes, and what happens to a volume when its claim goes.
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../apiserver/test/harness.js';
import { CSI_DRIVER } from '../runtime/conventions.js';
import { mergePatch } from '../runtime/patches.js';
import {
  NS,
  type VolumesEnv,
  addClaim,
  addNode,
  addStorageClass,
  boundVolume,
  eventsFor,
  startVolumes,
  zones,
} from './volumesHarness.js';

let env: VolumesEnv;
beforeAll(async () => {
  env = await startVolumes();
  await addNode(env, 'node-a', { 'topology.kubernetes.io/zone': 'a' });
  await addNode(env, 'node-b', { 'topology.kubernetes.io/zone': 'b' });
  await addNode(env, 'node-d', { 'topology.kubernetes.io/zone': 'd' });
  await addStorageClass(env, 'fast');
  await addStorageClass(env, 'near', {
    volumeBindingMode: 'WaitForFirstConsumer',
    allowedTopologies: zones(['a', 'b'], ['c']),
    reclaimPolicy: 'Retain',
  });
});
afterAll(() => env?.stop());

const readClaim = (name: string) => env.core.readNamespacedPersistentVolumeClaim({ name, namespace: NS });
const readVolume = (name: string) => env.core.readPersistentVolume({ name });
const volumeGone = async (name: string) => {
  try {
    await readVolume(name);
    return false;
  } catch {
    return true;
  }
};
const selectNode = (claim: string, node: string) =>
  env.core.patchNamespacedPersistentVolumeClaim(
    {
      name: claim,
      namespace: NS,
      body: { metadata: { annotations: { 'volume.kubernetes.io/selected-node': node } } },
    },
    mergePatch,
  );

function staticVolume(
  name: string,
  size: string,
  extra: Partial<k8s.V1PersistentVolumeSpec> = {},
): k8s.V1PersistentVolume {
  return {
    metadata: { name },
    spec: {
      storageClassName: 'manual',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: size },
      csi: { driver: CSI_DRIVER, volumeHandle: name },
      ...extra,
    },
  };
}

describe('dynamic provisioning', () => {
  it('provisions and binds at once for an Immediate class', async () => {
    const claim = await addClaim(env, 'imm', { storageClassName: 'fast', size: '2Gi' });
    const pvName = await boundVolume(env, 'imm');
    expect(pvName).toBe(`pvc-${claim.metadata?.uid}`);
    const pv = await readVolume(pvName);
    expect(pv.status?.phase).toBe('Bound');
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']).toBe(CSI_DRIVER);
    expect(pv.spec?.csi).toMatchObject({ driver: CSI_DRIVER, volumeHandle: pvName });
    expect(pv.spec?.claimRef).toMatchObject({ namespace: NS, name: 'imm', uid: claim.metadata?.uid });
    expect(pv.spec?.capacity).toEqual({ storage: '2Gi' });
    expect(pv.spec?.persistentVolumeReclaimPolicy).toBe('Delete');
    expect(pv.spec?.nodeAffinity).toBeUndefined();
    const c = await readClaim('imm');
    expect(c.metadata?.annotations).toMatchObject({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.kubernetes.io/storage-provisioner': CSI_DRIVER,
    });
    expect(c.status).toMatchObject({
      phase: 'Bound',
      capacity: { storage: '2Gi' },
      accessModes: ['ReadWriteOnce'],
    });
    const ok = await eventually(() =>
      eventsFor(env, 'PersistentVolumeClaim', 'imm', 'ProvisioningSucceeded').then((e) => e[0]),
    );
    expect(ok.message).toBe(`Successfully provisioned volume ${pvName}`);
  });

  it('keeps ReadWriteMany and ReadWriteOncePod, refuses ReadOnlyMany', async () => {
    await addClaim(env, 'shared', { storageClassName: 'fast', modes: ['ReadWriteMany'] });
    await addClaim(env, 'single', { storageClassName: 'fast', modes: ['ReadWriteOncePod'] });
    await addClaim(env, 'ro', { storageClassName: 'fast', modes: ['ReadOnlyMany'] });
    expect((await readVolume(await boundVolume(env, 'shared'))).spec?.accessModes).toEqual(['ReadWriteMany']);
    expect((await readVolume(await boundVolume(env, 'single'))).spec?.accessModes).toEqual([
      'ReadWriteOncePod',
    ]);
    const failed = await eventually(() =>
      eventsFor(env, 'PersistentVolumeClaim', 'ro', 'ProvisioningFailed').then((e) => e[0]),
    );
    expect(failed.type).toBe('Warning');
    expect(failed.message).toBe(
      `failed to provision volume with StorageClass "fast": rpc error: code = InvalidArgument desc = volume capability access mode ReadOnlyMany is not supported by driver ${CSI_DRIVER}`,
    );
    expect((await readClaim('ro')).status?.phase).toBe('Pending');
  });

  it('waits for the first consumer, then provisions where the selected node can reach', async () => {
    const claim = await addClaim(env, 'wffc', { storageClassName: 'near' });
    await eventually(() =>
      eventsFor(env, 'PersistentVolumeClaim', 'wffc', 'WaitForFirstConsumer').then((e) => e.length),
    );
    expect((await readClaim('wffc')).status?.phase).toBe('Pending');
    expect(await volumeGone(`pvc-${claim.metadata?.uid}`)).toBe(true);

    await selectNode('wffc', 'node-b');
    const pv = await readVolume(await boundVolume(env, 'wffc'));
    expect(pv.spec?.persistentVolumeReclaimPolicy).toBe('Retain');
    expect(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] }] },
    ]);
  });

  it('fails to provision for a node outside the allowed topologies', async () => {
    await addClaim(env, 'far', {
      storageClassName: 'near',
      annotations: { 'volume.kubernetes.io/selected-node': 'node-d' },
    });
    const failed = await eventually(() =>
      eventsFor(env, 'PersistentVolumeClaim', 'far', 'ProvisioningFailed').then((e) => e[0]),
    );
    expect(failed.message).toBe(
      'failed to provision volume with StorageClass "near": error generating accessibility requirements: selected node "node-d" topology "topology.kubernetes.io/zone=d" is not in allowed topologies',
    );
    expect((await readClaim('far')).status?.phase).toBe('Pending');
  });
});

describe('static volumes', () => {
  it('binds a claim to the smallest Available volume that fits', async () => {
    for (const [name, size] of [
      ['small', '1Gi'],
      ['medium', '5Gi'],
      ['large', '50Gi'],
    ])
      await env.core.createPersistentVolume({ body: staticVolume(name, size) });
    await eventually(
      async () => (await readVolume('medium')).status?.phase === 'Available',
      'medium Available',
    );
    const claim = await addClaim(env, 'manual-claim', { storageClassName: 'manual', size: '3Gi' });
    expect(await boundVolume(env, 'manual-claim')).toBe('medium');
    const pv = await readVolume('medium');
    expect(pv.status?.phase).toBe('Bound');
    expect(pv.spec?.claimRef).toMatchObject({ name: 'manual-claim', uid: claim.metadata?.uid });
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    expect((await readClaim('manual-claim')).status?.capacity).toEqual({ storage: '5Gi' });
    expect((await readVolume('small')).status?.phase).toBe('Available');
  });

  it('releases a retained volume when its claim is deleted', async () => {
    await env.core.deleteNamespacedPersistentVolumeClaim({ name: 'manual-claim', namespace: NS });
    await eventually(
      async () => (await readVolume('medium')).status?.phase === 'Released',
      'medium Released',
    );
  });

  it('deletes a provisioned volume with the Delete policy when its claim is deleted', async () => {
    const pvName = await boundVolume(env, 'imm');
    await env.core.deleteNamespacedPersistentVolumeClaim({ name: 'imm', namespace: NS });
    await eventually(() => volumeGone(pvName), `${pvName} deleted`);
  });

  it('gives a claim without class the default class', async () => {
    await addStorageClass(env, 'standard', {
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    });
    await addClaim(env, 'classless');
    const pv = await readVolume(await boundVolume(env, 'classless'));
    expect(pv.spec?.storageClassName).toBe('standard');
    expect((await readClaim('classless')).spec?.storageClassName).toBe('standard');
  });
});
