// Releasing a fenced node's workloads, and undoing it on recovery. OutOfServiceTaint: the taint
// node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, after which Kubernetes itself evicts
// the pods and detaches their volumes at once (KEP-2268); the evicted pods would then wait for
// kube-controller-manager's pod GC sweep (every 20 s), so Palisade force-deletes them itself —
// the node is fenced, which is exactly what makes that safe. ResourceDeletion:
// Palisade force-deletes the pods (grace 0, preconditions uid + resourceVersion, so a pod that
// changed since it was read is left alone) and deletes the node's VolumeAttachments. Both only
// ever run after the fence was verified; both read the Node and pods live, never from a cache.
import type * as k8s from '@kubernetes/client-node';
import { OUT_OF_SERVICE_TAINT, type Released, type ReleaseStrategy } from '../../lib/fencing/types.js';
import { isConflict, isNotFound } from '../../lib/kube/errorText.js';
import type { FencingApi } from './api.js';

const isOos = (t: k8s.V1Taint) =>
  t.key === OUT_OF_SERVICE_TAINT.key && t.effect === OUT_OF_SERVICE_TAINT.effect;
const ignoreGone = (e: unknown) => {
  if (!isNotFound(e) && !isConflict(e)) throw e;
};

/** One release round: what it found or did; `event` (the Event's reason) only when it changed something. */
export interface ReleaseRound {
  event?: 'OutOfServiceTaintAdded' | 'ResourcesDeleted';
  what: string;
  /** what this round let go of, by name (recorded in the NodeFence's step and its Event) */
  released?: Released;
}

const podKey = (p: k8s.V1Pod) => `${p.metadata?.namespace}/${p.metadata?.name}`;
const live = (p: k8s.V1Pod) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** "pods shop/db-0, shop/web-1; volume attachments csi-…" for an Event, or '' when nothing. */
export function namesOf(r: Released | undefined): string {
  if (!r) return '';
  const parts = [
    r.pods.length ? `pods ${r.pods.join(', ')}` : '',
    r.volumeAttachments.length ? `volume attachments ${r.volumeAttachments.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ');
}

export class Release {
  /**
   * node -> the round that added its taint: when the NodeFence's status write after it fails (a
   * 409 at load), the next round finds the taint there and the pods gone, and would record that
   * nothing was released; the first recorded round says what that taint released instead.
   */
  private readonly taintRounds = new Map<string, ReleaseRound & { released: Released }>();

  constructor(private readonly api: FencingApi) {}

  /**
   * Carry out one release round: what it found or did, and the Event's reason if it changed
   * anything. `first`: no release round of this fence is recorded yet (its phase is Fenced).
   */
  async apply(node: string, strategy: ReleaseStrategy, first = false): Promise<ReleaseRound> {
    if (strategy === 'ResourceDeletion') return this.deleteResources(node);
    // what the taint releases: the node's pods (Kubernetes evicts them) and the attachments naming
    // it (Kubernetes detaches them at once), read before the taint so the record names them
    const before = await this.onNode(node);
    const tainted = await this.taint(node);
    const finished = await this.forceDelete(node, (p) => !!p.metadata?.deletionTimestamp);
    const unrecorded = first && !tainted.event ? this.taintRounds.get(node) : undefined;
    if (unrecorded) return withForceDeleted(unrecorded, finished);
    const released: Released = tainted.event ? before : { pods: finished, volumeAttachments: [] };
    const names = namesOf(released);
    if (tainted.event && names) tainted.what = `${tainted.what}; it releases ${names}`;
    if (tainted.event) this.taintRounds.set(node, { ...tainted, released });
    if (!finished.length) return tainted.event ? { ...tainted, released } : tainted;
    const what = `force-deleted ${finished.length} evicted pod(s) of the fenced node (rather than wait for the pod GC sweep): ${finished.join(', ')}`;
    return tainted.event
      ? { event: tainted.event, what: `${tainted.what}; ${what}`, released }
      : { event: 'ResourcesDeleted', what, released };
  }

  /** Forget the taint round of a node that is back (its next fence starts afresh). */
  forget(node: string): void {
    this.taintRounds.delete(node);
  }

  /** The node's pods that still run (or are being evicted) and the VolumeAttachments naming it, read live. */
  async onNode(node: string): Promise<Released> {
    const pods = await this.api.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` });
    const vas = await this.api.storage.listVolumeAttachment();
    return {
      pods: pods.items.filter(live).map(podKey).sort(),
      volumeAttachments: vas.items
        .filter((v) => v.spec.nodeName === node)
        .map((v) => v.metadata?.name ?? '')
        .sort(),
    };
  }

  private async taint(node: string): Promise<ReleaseRound> {
    for (let i = 0; i < 5; i++) {
      const n = await this.api.core.readNode({ name: node }).catch((e) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      if (!n) return { what: `node ${node} is gone: Kubernetes garbage-collects its pods` };
      if ((n.spec?.taints ?? []).some(isOos))
        return { what: `node ${node} already carries the out-of-service taint` };
      n.spec = {
        ...n.spec,
        taints: [...(n.spec?.taints ?? []), { ...OUT_OF_SERVICE_TAINT, timeAdded: new Date() }],
      };
      try {
        // replace with the resourceVersion just read: a concurrent node update makes this a 409
        await this.api.core.replaceNode({ name: node, body: n });
        return {
          event: 'OutOfServiceTaintAdded',
          what: `out-of-service taint ${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value}:${OUT_OF_SERVICE_TAINT.effect} added: Kubernetes now evicts the node's pods and detaches their volumes`,
        };
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
    throw new Error(`node ${node} kept changing: the out-of-service taint was not added (will retry)`);
  }

  /** Force-delete (grace 0, uid + resourceVersion preconditions) the node's pods that `which` picks; answers which. */
  private async forceDelete(node: string, which: (p: k8s.V1Pod) => boolean): Promise<string[]> {
    const pods = await this.api.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` });
    const deleted: string[] = [];
    for (const p of pods.items) {
      if (!live(p) || !which(p)) continue;
      await this.api.core
        .deleteNamespacedPod({
          name: p.metadata!.name!,
          namespace: p.metadata!.namespace!,
          gracePeriodSeconds: 0,
          body: {
            gracePeriodSeconds: 0,
            preconditions: { uid: p.metadata?.uid, resourceVersion: p.metadata?.resourceVersion },
          },
        })
        .then(() => deleted.push(podKey(p)), ignoreGone);
    }
    return deleted.sort();
  }

  private async deleteResources(node: string): Promise<ReleaseRound> {
    const deleted = await this.forceDelete(node, () => true);
    const vas = await this.api.storage.listVolumeAttachment();
    const detached: string[] = [];
    for (const va of vas.items.filter((v) => v.spec.nodeName === node)) {
      await this.api.storage
        .deleteVolumeAttachment({
          name: va.metadata!.name!,
          body: { preconditions: { uid: va.metadata?.uid, resourceVersion: va.metadata?.resourceVersion } },
        })
        .then(() => detached.push(va.metadata!.name!), ignoreGone);
    }
    const released = { pods: deleted, volumeAttachments: detached.sort() };
    const names = namesOf(released);
    return {
      event: deleted.length + detached.length > 0 ? 'ResourcesDeleted' : undefined,
      what: `force-deleted ${deleted.length} pod(s) and deleted ${detached.length} volume attachment(s) of node ${node}${names ? `: ${names}` : ''}`,
      released,
    };
  }

  /** On recovery: take the out-of-service taint off again. Returns whether it was there. */
  async removeTaint(node: string): Promise<boolean> {
    for (let i = 0; i < 5; i++) {
      const n = await this.api.core.readNode({ name: node });
      const taints = n.spec?.taints ?? [];
      if (!taints.some(isOos)) return false;
      n.spec = { ...n.spec, taints: taints.filter((t) => !isOos(t)) };
      try {
        await this.api.core.replaceNode({ name: node, body: n });
        return true;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
    throw new Error(`node ${node} kept changing: the out-of-service taint was not removed (will retry)`);
  }
}

/** An unrecorded taint round, with the evicted pods this round force-deleted added to its record. */
function withForceDeleted(round: ReleaseRound & { released: Released }, finished: string[]): ReleaseRound {
  const pods = [...new Set([...round.released.pods, ...finished])].sort();
  return { ...round, released: { ...round.released, pods } };
}
