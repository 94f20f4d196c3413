// PV binder and provisioner, standing in for kube-controller-manager's
// persistentvolume-controller and the CSI external-provisioner of CSI_DRIVER. It binds
// pending claims to matching volumes (or provisions one), keeps volume phases
// (Available, Bound, Released, Failed) and reclaims released volumes. Only the API,
// only optimistic writes: a 409 requeues the key.
import type * as k8s from '@kubernetes/client-node';
import {
  accessModesSatisfy,
  findMatchingVolume,
  isVolumeBoundToClaim,
  requestedStorage,
  volumeCapacity,
} from '../rules/volumes/binding.js';
import { ANN_BIND_COMPLETED, ANN_DEFAULT_CLASS, ANN_SELECTED_NODE } from '../../lib/volumes/names.js';
import { nodeInfo } from '../rules/volumes/nodeAffinity.js';
import { type Controller, type ControllerContext, statusCode } from './runtime/context.js';
import { CSI_DRIVER } from './runtime/conventions.js';
import { WorkQueue } from './runtime/queue.js';
import { BinderWrites } from './volumes/binderWrites.js';
import { logFailure, subject } from './volumes/common.js';
import { FreshCache } from './volumes/fresh.js';
import { Provisioner } from './volumes/provisioner.js';

const COMPONENT = 'persistentvolume-controller';
type Claim = k8s.V1PersistentVolumeClaim;
type Volume = k8s.V1PersistentVolume;

export class PvBinder implements Controller {
  readonly name = 'pv-binder';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  private writes!: BinderWrites;
  private provisioner!: Provisioner;
  private pvs!: FreshCache<Volume>;
  private pvcs!: FreshCache<Claim>;
  // handlers fire while informers fill; decisions wait for complete caches
  private started = false;

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.pvs = new FreshCache(ctx.informers.pvs);
    this.pvcs = new FreshCache(ctx.informers.pvcs);
    const remember = { volume: (v: Volume) => this.pvs.wrote(v), claim: (c: Claim) => this.pvcs.wrote(c) };
    this.writes = new BinderWrites(ctx.clients.core, remember);
    this.provisioner = new Provisioner(ctx, remember.claim);
    this.queue = new WorkQueue((k) => this.sync(k), logFailure(ctx.log, this.name));
    const { pvcs, pvs, storageClasses, nodes, volumeAttachments } = ctx.informers;
    const claim = (c: Claim) => this.claimChanged(c);
    const volume = (v: Volume) => this.volumeChanged(v);
    pvcs.on({ add: claim, update: claim, delete: claim });
    pvs.on({ add: volume, update: volume, delete: volume });
    storageClasses.on({ add: (sc) => this.classChanged(sc), update: (sc) => this.classChanged(sc) });
    // selected nodes are looked up in the cache; a missing node is retried with backoff
    nodes.on({});
    // a released volume waits for its last VolumeAttachment before it is deleted
    volumeAttachments.on({ delete: (va) => this.enqueue(`volume:${va.spec?.source?.persistentVolumeName}`) });
  }

  start() {
    this.started = true;
    for (const c of this.ctx.informers.pvcs.list()) this.claimChanged(c);
    for (const v of this.ctx.informers.pvs.list()) this.volumeChanged(v);
  }

  stop() {
    this.started = false;
    this.queue?.stop();
  }

  private enqueue(key: string) {
    if (this.started) this.queue.add(key);
  }

  private claimChanged(c: Claim) {
    this.enqueue(`claim:${c.metadata?.namespace}/${c.metadata?.name}`);
    if (c.spec?.volumeName) this.enqueue(`volume:${c.spec.volumeName}`);
    // a volume provisioned for the claim but not bound yet
    if (this.ctx.informers.pvs.get(`pvc-${c.metadata?.uid}`)) this.enqueue(`volume:pvc-${c.metadata?.uid}`);
  }

  private volumeChanged(v: Volume) {
    this.enqueue(`volume:${v.metadata?.name}`);
    const ref = v.spec?.claimRef;
    if (ref) this.enqueue(`claim:${ref.namespace}/${ref.name}`);
  }

  private classChanged(sc: k8s.V1StorageClass) {
    const isDefault = sc.metadata?.annotations?.[ANN_DEFAULT_CLASS] === 'true';
    for (const c of this.ctx.informers.pvcs.list()) {
      if (c.spec?.volumeName) continue;
      const cls = c.spec?.storageClassName;
      if (cls === sc.metadata?.name || (cls === undefined && isDefault)) this.claimChanged(c);
    }
  }

  private async sync(key: string) {
    const [kind, rest] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (kind === 'volume') return this.syncVolume(rest);
    const [namespace, name] = rest.split('/');
    const claim = this.pvcs.get(name, namespace);
    if (!claim) return;
    if (claim.spec?.volumeName) return this.syncBoundClaim(claim);
    return this.syncPendingClaim(claim);
  }

  private event(claim: Claim, type: 'Normal' | 'Warning', reason: string, msg: string) {
    return this.ctx.events.record(
      COMPONENT,
      subject('PersistentVolumeClaim', 'v1', claim),
      type,
      reason,
      msg,
    );
  }

  /** the newest class annotated as default, as the DefaultStorageClass admission picks it */
  private defaultClass(): string | undefined {
    const defaults = this.ctx.informers.storageClasses
      .list()
      .filter((sc) => sc.metadata?.annotations?.[ANN_DEFAULT_CLASS] === 'true')
      .sort(
        (a, b) =>
          +new Date(b.metadata?.creationTimestamp ?? 0) - +new Date(a.metadata?.creationTimestamp ?? 0),
      );
    return defaults[0]?.metadata?.name;
  }

  private async syncPendingClaim(claim: Claim) {
    const inf = this.ctx.informers;
    if (claim.spec?.storageClassName === undefined) {
      const def = this.defaultClass();
      if (def) return void (await this.writes.assignClass(claim, def));
    }
    const className = claim.spec?.storageClassName ?? '';
    const sc = className ? inf.storageClasses.get(className) : undefined;
    const delay = sc?.volumeBindingMode === 'WaitForFirstConsumer';
    const selected = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
    const node = selected ? inf.nodes.get(selected) : undefined;
    const pv = findMatchingVolume(claim, this.pvs.list(), {
      delayBinding: delay,
      node: node && nodeInfo(node),
    });
    if (pv) return this.bind(pv, claim);
    if (delay && !selected)
      return this.event(
        claim,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
    if (!sc) {
      if (className)
        return this.event(
          claim,
          'Warning',
          'ProvisioningFailed',
          `storageclass.storage.k8s.io "${className}" not found`,
        );
      return this.event(
        claim,
        'Normal',
        'FailedBinding',
        'no persistent volumes available for this claim and no storage class is set',
      );
    }
    await this.event(
      claim,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${sc.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    if (sc.provisioner === CSI_DRIVER) await this.provisioner.provision(claim, sc);
  }

  private async syncBoundClaim(claim: Claim) {
    const pv = this.pvs.get(claim.spec!.volumeName!);
    const completed = claim.metadata?.annotations?.[ANN_BIND_COMPLETED] === 'yes';
    if (!pv) {
      // a user's pre-binding to a volume that does not exist yet simply waits
      if (completed)
        await this.lost(
          claim,
          'ClaimLost',
          'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
        );
      return;
    }
    if (isVolumeBoundToClaim(pv, claim)) return this.bind(pv, claim);
    if (pv.spec?.claimRef) {
      if (completed)
        await this.lost(
          claim,
          'ClaimMisbound',
          'Two claims are bound to the same volume, this one is bound incorrectly',
        );
      return;
    }
    const mismatch = completed ? undefined : this.mismatch(pv, claim);
    if (mismatch)
      return this.event(
        claim,
        'Warning',
        'VolumeMismatch',
        `Cannot bind to requested volume "${pv.metadata?.name}": ${mismatch}`,
      );
    return this.bind(pv, claim);
  }

  /** checkVolumeSatisfyClaim for a claim pre-bound by its author */
  private mismatch(pv: Volume, claim: Claim): string | undefined {
    if ((volumeCapacity(pv) ?? -1) < (requestedStorage(claim) ?? 0)) return 'requested PV is too small';
    if ((pv.spec?.storageClassName ?? '') !== (claim.spec?.storageClassName ?? ''))
      return 'storageClassName does not match';
    if (!accessModesSatisfy(pv.spec?.accessModes, claim.spec?.accessModes)) return 'incompatible accessMode';
    return undefined;
  }

  private async lost(claim: Claim, reason: string, msg: string) {
    if (claim.status?.phase === 'Lost') return;
    await this.writes.claimPhase(claim, 'Lost');
    await this.event(claim, 'Warning', reason, msg);
  }

  private async bind(pv: Volume, claim: Claim) {
    const bound = await this.writes.bindVolume(pv, claim);
    await this.writes.bindClaim(claim, bound);
  }

  private async syncVolume(name: string) {
    const pv = this.pvs.get(name);
    if (!pv || pv.metadata?.deletionTimestamp) return;
    const ref = pv.spec?.claimRef;
    if (!ref?.uid) return void (await this.writes.volumePhase(pv, 'Available'));
    const claim = await this.claimOf(ref);
    if (!claim) return this.release(pv);
    const bound = claim.spec?.volumeName;
    if (bound && bound !== name) {
      // the claim went to another volume: this one is free again, unless a user bound it by hand
      return void (await this.writes.unbindVolume(pv));
    }
    await this.writes.volumePhase(pv, 'Bound');
  }

  /** The claim the volume points at, confirmed with the API server before we call it gone. */
  private async claimOf(ref: k8s.V1ObjectReference): Promise<Claim | undefined> {
    const cached = this.pvcs.get(ref.name!, ref.namespace);
    if (cached?.metadata?.uid === ref.uid) return cached;
    try {
      const live = await this.ctx.clients.core.readNamespacedPersistentVolumeClaim({
        name: ref.name!,
        namespace: ref.namespace!,
      });
      return live.metadata?.uid === ref.uid ? live : undefined;
    } catch (err) {
      if (statusCode(err) === 404) return undefined;
      throw err;
    }
  }

  /** The claim is gone: Released, then the reclaim policy. */
  private async release(pv: Volume) {
    if (pv.status?.phase === 'Failed') return;
    pv = await this.writes.volumePhase(pv, 'Released');
    if (pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') return;
    if (this.provisioner.owns(pv)) return this.provisioner.delete(pv);
    const msg = `error getting deleter volume plugin for volume "${pv.metadata?.name}": no deletable volume plugin matched`;
    await this.writes.volumePhase(pv, 'Failed', msg);
    await this.ctx.events.record(
      COMPONENT,
      subject('PersistentVolume', 'v1', pv),
      'Warning',
      'VolumeFailedDelete',
      msg,
    );
  }
}
