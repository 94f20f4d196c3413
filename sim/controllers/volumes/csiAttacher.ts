// The simulated CSI external-attacher of CSI_DRIVER. It guards each VolumeAttachment
// with a finalizer, reports status.attached=true once the storage has taken
// attachDelayMs to attach, and on deletion takes as long to detach before it lets
// the object go. Delays are WorkQueue deadlines, not timers per volume.
import type * as k8s from '@kubernetes/client-node';
import type { Controller, ControllerContext } from '../runtime/context.js';
import { CSI_DRIVER } from '../runtime/conventions.js';
import { mergePatch } from '../runtime/patches.js';
import { WorkQueue } from '../runtime/queue.js';
import { logFailure, tolerate } from './common.js';

/** the external-attacher's finalizer name: driver name with dots made dashes */
export const ATTACHER_FINALIZER = `external-attacher/${CSI_DRIVER.replace(/\./g, '-')}`;

type Attachment = k8s.V1VolumeAttachment;

export class CsiAttacher implements Controller {
  readonly name = 'csi-attacher';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  /** when the current attach or detach operation began */
  private readonly began = new Map<string, { detaching: boolean; at: number }>();
  private started = false;

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.queue = new WorkQueue((k) => this.sync(k), logFailure(ctx.log, 'csi-attacher'));
    const changed = (va: Attachment) => this.enqueue(va.metadata!.name!);
    ctx.informers.volumeAttachments.on({
      add: changed,
      update: changed,
      delete: (va) => this.began.delete(va.metadata!.name!),
    });
  }

  start() {
    this.started = true;
    for (const va of this.ctx.informers.volumeAttachments.list()) this.enqueue(va.metadata!.name!);
  }

  stop() {
    this.started = false;
    this.queue?.stop();
  }

  private enqueue(name: string) {
    if (this.started) this.queue.add(name);
  }

  private async sync(name: string) {
    const va = this.ctx.informers.volumeAttachments.get(name);
    if (!va || va.spec?.attacher !== CSI_DRIVER) return void this.began.delete(name);
    const detaching = !!va.metadata?.deletionTimestamp;
    const guarded = (va.metadata?.finalizers ?? []).includes(ATTACHER_FINALIZER);
    if (!detaching && va.status?.attached) return;
    if (!guarded) return detaching ? undefined : this.guard(va);
    const left = this.remaining(name, detaching);
    if (left > 0) return this.queue.addAfter(name, left);
    return detaching ? this.release(va) : this.markAttached(va);
  }

  private remaining(name: string, detaching: boolean): number {
    let op = this.began.get(name);
    if (!op || op.detaching !== detaching) this.began.set(name, (op = { detaching, at: Date.now() }));
    return op.at + this.ctx.durations.attachDelayMs - Date.now();
  }

  private async guard(va: Attachment) {
    const finalizers = [...(va.metadata?.finalizers ?? []), ATTACHER_FINALIZER];
    const body = { metadata: { resourceVersion: va.metadata?.resourceVersion, finalizers } };
    await this.ctx.clients.storage.patchVolumeAttachment({ name: va.metadata!.name!, body }, mergePatch);
  }

  private async markAttached(va: Attachment) {
    const body = { metadata: { resourceVersion: va.metadata?.resourceVersion }, status: { attached: true } };
    await this.ctx.clients.storage.patchVolumeAttachmentStatus(
      { name: va.metadata!.name!, body },
      mergePatch,
    );
    this.ctx.log('csi-attacher', `attached ${va.spec?.source?.persistentVolumeName} to ${va.spec?.nodeName}`);
  }

  /** detached from the storage: drop the finalizer and the object goes */
  private async release(va: Attachment) {
    const finalizers = (va.metadata?.finalizers ?? []).filter((f) => f !== ATTACHER_FINALIZER);
    const body = { metadata: { resourceVersion: va.metadata?.resourceVersion, finalizers } };
    await tolerate(
      this.ctx.clients.storage.patchVolumeAttachment({ name: va.metadata!.name!, body }, mergePatch),
      [404],
    );
    this.ctx.log(
      'csi-attacher',
      `detached ${va.spec?.source?.persistentVolumeName} from ${va.spec?.nodeName}`,
    );
  }
}
