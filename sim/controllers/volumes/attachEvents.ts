// Events the attach/detach controller records on pods: the Multi-Attach error when a
// pod starts waiting for a volume another node holds (once, as kube-controller-manager
// reports it once per volume and node it waits for, however long that takes), and
// SuccessfulAttachVolume once the volume is attached.
import type * as k8s from '@kubernetes/client-node';
import { type BlockedAttach, multiAttachMessage } from '../../../lib/volumes/attach.js';
import type { ControllerContext } from '../runtime/context.js';
import { subject } from './common.js';
import type { VolumeUsageIndex } from './usageIndex.js';

const COMPONENT = 'attachdetach-controller';

/**
 * kube-controller-manager's GenerateMsg("AttachVolume.Attach succeeded", ""): its format is
 * "%v for volume %q %v", so the message ends with a space.
 */
const attachSucceeded = (pv: string) => `AttachVolume.Attach succeeded for volume "${pv}" `;

export class AttachEvents {
  /** pod uid|node|pv whose Multi-Attach error was recorded */
  private readonly reported = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {}

  async multiAttach(pv: string, b: BlockedAttach) {
    for (const pod of b.pods) {
      const key = `${pod.uid}|${b.node}|${pv}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
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
      await this.ctx.events.record(COMPONENT, s, 'Normal', 'SuccessfulAttachVolume', attachSucceeded(pv));
    }
  }
}
