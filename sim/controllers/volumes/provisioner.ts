// The simulated CSI external-provisioner: creates a PersistentVolume for a claim of a
// StorageClass served by CSI_DRIVER, and deletes released volumes it provisioned.
// Creating pvc-<claim uid> is idempotent: a second attempt meets 409 AlreadyExists.
import type * as k8s from '@kubernetes/client-node';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_PROVISIONED_BY,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
} from '../../../lib/volumes/names.js';
import { nodeInfo } from '../../rules/volumes/nodeAffinity.js';
import { planProvisionedVolume, provisioningFailedMessage } from '../../rules/volumes/provisioning.js';
import type { ControllerContext } from '../runtime/context.js';
import { CSI_DRIVER } from '../runtime/conventions.js';
import { mergePatch } from '../runtime/patches.js';
import { RetryLater, subject, tolerate } from './common.js';

/** the provisioner's identity, as the sidecar reports it in Events */
const COMPONENT = `${CSI_DRIVER}_sim-csi-controller`;

export class Provisioner {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly remember: (c: k8s.V1PersistentVolumeClaim) => k8s.V1PersistentVolumeClaim,
  ) {}

  private event(claim: k8s.V1PersistentVolumeClaim, type: 'Normal' | 'Warning', reason: string, msg: string) {
    return this.ctx.events.record(
      COMPONENT,
      subject('PersistentVolumeClaim', 'v1', claim),
      type,
      reason,
      msg,
    );
  }

  /** the PV controller hands the claim to the external provisioner by annotating it */
  private async handOver(claim: k8s.V1PersistentVolumeClaim, sc: k8s.V1StorageClass) {
    const ann = claim.metadata?.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] === sc.provisioner) return claim;
    const { name, namespace, resourceVersion } = claim.metadata!;
    const annotations = {
      [ANN_STORAGE_PROVISIONER]: sc.provisioner,
      [ANN_BETA_STORAGE_PROVISIONER]: sc.provisioner,
    };
    const body = { metadata: { resourceVersion, annotations } };
    const core = this.ctx.clients.core;
    return this.remember(
      await core.patchNamespacedPersistentVolumeClaim(
        { name: name!, namespace: namespace!, body },
        mergePatch,
      ),
    );
  }

  async provision(claim: k8s.V1PersistentVolumeClaim, sc: k8s.V1StorageClass) {
    claim = await this.handOver(claim, sc);
    const { namespace, name } = claim.metadata!;
    await this.event(
      claim,
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${namespace}/${name}"`,
    );
    const selectedNodeName = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
    const node = selectedNodeName ? this.ctx.informers.nodes.get(selectedNodeName) : undefined;
    const plan = planProvisionedVolume({
      claim,
      storageClass: sc,
      driver: CSI_DRIVER,
      selectedNodeName,
      selectedNode: node && nodeInfo(node),
    });
    if (!plan.ok) {
      await this.event(
        claim,
        'Warning',
        'ProvisioningFailed',
        provisioningFailedMessage(sc.metadata!.name!, plan.error),
      );
      throw new RetryLater(plan.error);
    }
    const created = await tolerate(
      this.ctx.clients.core.createPersistentVolume({ body: plan.volume }),
      [409],
    );
    if (!created) return;
    this.ctx.log('pv-binder', `provisioned ${created.metadata?.name} for ${namespace}/${name}`);
    await this.event(
      claim,
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${created.metadata?.name}`,
    );
  }

  /** Whether this provisioner owns the volume's storage (and so may delete it). */
  owns(pv: k8s.V1PersistentVolume): boolean {
    return pv.metadata?.annotations?.[ANN_PROVISIONED_BY] === CSI_DRIVER;
  }

  /** Delete reclaim policy: remove the storage and the PV, but never while it is attached. */
  async delete(pv: k8s.V1PersistentVolume) {
    const name = pv.metadata!.name!;
    const va = this.ctx.informers.volumeAttachments
      .list()
      .find((v) => v.spec?.source?.persistentVolumeName === name);
    const warn = (msg: string) =>
      this.ctx.events.record(
        COMPONENT,
        subject('PersistentVolume', 'v1', pv),
        'Warning',
        'VolumeFailedDelete',
        msg,
      );
    // retried when the VolumeAttachment goes (the binder watches them)
    if (va) return warn(`persistentvolume ${name} is still attached to node ${va.spec?.nodeName}`);
    const body = { preconditions: { uid: pv.metadata?.uid } };
    await tolerate(this.ctx.clients.core.deletePersistentVolume({ name, body }), [404, 409]);
    this.ctx.log('pv-binder', `deleted released volume ${name}`);
  }
}
