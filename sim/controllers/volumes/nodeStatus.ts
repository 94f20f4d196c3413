// Mirrors attached volumes into node.status.volumesAttached, as the attach/detach
// controller does: a volume appears once its VolumeAttachment reports attached and
// disappears as soon as a detach is decided, before the detach starts.
import type * as k8s from '@kubernetes/client-node';
import type { ControllerContext } from '../runtime/context.js';
import { CSI_DRIVER, uniqueVolumeName } from '../runtime/conventions.js';
import { mergePatch } from '../runtime/patches.js';
import { uniqueVolumePrefix } from './common.js';
import type { VolumeUsageIndex } from './usageIndex.js';

export class NodeStatusMirror {
  /** attachments being detached: no longer reported, even while the object lingers */
  private readonly leaving = new Set<string>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly index: VolumeUsageIndex,
  ) {}

  async detaching(attachment: string, node: string) {
    this.leaving.add(attachment);
    await this.sync(node);
  }

  detached(attachment: string) {
    this.leaving.delete(attachment);
  }

  private wanted(node: k8s.V1Node): k8s.V1AttachedVolume[] {
    const ours = uniqueVolumePrefix(CSI_DRIVER);
    const others = (node.status?.volumesAttached ?? []).filter((v) => !v.name.startsWith(ours));
    const inf = this.ctx.informers.volumeAttachments;
    const attached = this.index
      .attachmentsOnNode(node.metadata!.name!)
      .map((n) => inf.get(n))
      .filter(
        (va) => va?.spec?.attacher === CSI_DRIVER && va.status?.attached && !va.metadata?.deletionTimestamp,
      )
      .filter((va) => !this.leaving.has(va!.metadata!.name!))
      .map((va) => ({ name: uniqueVolumeName(va!.spec!.source!.persistentVolumeName!), devicePath: '' }));
    return [...others, ...attached].sort((a, b) => a.name.localeCompare(b.name));
  }

  async sync(nodeName: string) {
    const node = this.ctx.informers.nodes.get(nodeName);
    if (!node) return;
    const want = this.wanted(node);
    const have = node.status?.volumesAttached ?? [];
    const names = (l: k8s.V1AttachedVolume[]) =>
      l
        .map((v) => v.name)
        .sort()
        .join('\n');
    if (names(want) === names(have)) return;
    const body = {
      metadata: { resourceVersion: node.metadata?.resourceVersion },
      status: { volumesAttached: want.length ? want : null },
    };
    await this.ctx.clients.core.patchNodeStatus({ name: nodeName, body }, mergePatch);
  }
}
