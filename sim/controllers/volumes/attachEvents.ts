// Events the attach/detach controller records on pods: the Multi-Attach error while a
// pod waits for a volume another node holds (recorded again every retryMs, so its
// count grows), and SuccessfulAttachVolume once the volume is attached.
import type * as k8s from '@kubernetes/client-node';
import {
  type BlockedAttach,
  attachSucceededMessage,
  multiAttachMessage,
} from '../../../lib/volumes/attach.js';
import type { ControllerContext } from '../runtime/context.js';
import { subject } from './common.js';
import type { VolumeUsageIndex } from './usageIndex.js';

const COMPONENT = 'attachdetach-controller';

export class AttachEvents {
  /** pod uid|node|pv -> when its Multi-Attach error was last recorded */
  private readonly reported = new Map<string, number>();

  constructor(
    private readonly ctx: ControllerContext,
    readonly retryMs: number,
  ) {}

  async multiAttach(pv: string, b: BlockedAttach) {
    const now = Date.now();
    for (const pod of b.pods) {
      const key = `${pod.uid}|${b.node}|${pv}`;
      const last = this.reported.get(key);
      if (last !== undefined && now - last < this.retryMs) continue;
      this.reported.set(key, now);
      const obj = this.ctx.informers.pods.get(pod.name, pod.namespace);
      if (!obj) continue;
      const msg = multiAttachMessage(pv, pod, b.blockers);
      await this.ctx.events.record(
        COMPONENT,
        subject('Pod', 'v1', obj),
        'Warning',
        'FailedAttachVolume',
        msg,
      );
    }
  }

  forgetPod(p: k8s.V1Pod) {
    const prefix = `${p.metadata?.uid}|`;
    for (const k of this.reported.keys()) if (k.startsWith(prefix)) this.reported.delete(k);
  }

  async attached(va: k8s.V1VolumeAttachment, index: VolumeUsageIndex) {
    const pv = va.spec?.source?.persistentVolumeName ?? '';
    const inf = this.ctx.informers;
    for (const ref of index.usersOf(pv, inf.pvs.get(pv), inf)) {
      const pod = inf.pods.get(ref.name, ref.namespace);
      if (ref.node !== va.spec?.nodeName || !pod) continue;
      const s = subject('Pod', 'v1', pod);
      await this.ctx.events.record(
        COMPONENT,
        s,
        'Normal',
        'SuccessfulAttachVolume',
        attachSucceededMessage(pv),
      );
    }
  }
}
