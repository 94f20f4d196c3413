// Indexes the attach/detach controller keeps from informer events, so each decision
// looks at one volume's pods and attachments instead of scanning every object.
import type * as k8s from '@kubernetes/client-node';
import { type PodRef, claimNamesOfPod, podHoldsVolumes, podRef } from '../../../lib/volumes/attach.js';
import { claimKey } from '../../rules/volumes/binding.js';
import type { Informers } from '../runtime/context.js';
import { podKey } from '../runtime/conventions.js';

class MultiMap {
  private readonly m = new Map<string, Set<string>>();
  add(k: string, v: string) {
    let s = this.m.get(k);
    if (!s) this.m.set(k, (s = new Set()));
    s.add(v);
  }
  delete(k: string, v: string) {
    const s = this.m.get(k);
    if (s?.delete(v) && s.size === 0) this.m.delete(k);
  }
  get(k: string): string[] {
    return [...(this.m.get(k) ?? [])];
  }
}

const claimsOf = (p: k8s.V1Pod) => claimNamesOfPod(p).map((c) => claimKey(p.metadata?.namespace, c));

export class VolumeUsageIndex {
  private readonly podsByClaim = new MultiMap();
  private readonly attachmentsByVolume = new MultiMap();
  private readonly attachmentsByNode = new MultiMap();
  // remembered past the PV's or claim's deletion: a pod can outlive both, and
  // its volume must stay attached while it runs
  private readonly claimByVolume = new Map<string, string>();
  private readonly volumeByClaim = new Map<string, string>();

  pod(p: k8s.V1Pod, old?: k8s.V1Pod) {
    if (old) this.podGone(old);
    for (const c of claimsOf(p)) this.podsByClaim.add(c, podKey(p));
  }

  podGone(p: k8s.V1Pod) {
    for (const c of claimsOf(p)) this.podsByClaim.delete(c, podKey(p));
  }

  /** pod keys (namespace/name) that mount the claim */
  podsOf(claim: string): string[] {
    return this.podsByClaim.get(claim);
  }

  attachment(va: k8s.V1VolumeAttachment, old?: k8s.V1VolumeAttachment) {
    if (old) this.attachmentGone(old);
    const name = va.metadata!.name!;
    this.attachmentsByVolume.add(va.spec?.source?.persistentVolumeName ?? '', name);
    this.attachmentsByNode.add(va.spec?.nodeName ?? '', name);
  }

  attachmentGone(va: k8s.V1VolumeAttachment) {
    const name = va.metadata!.name!;
    this.attachmentsByVolume.delete(va.spec?.source?.persistentVolumeName ?? '', name);
    this.attachmentsByNode.delete(va.spec?.nodeName ?? '', name);
  }

  attachmentsOfVolume(pv: string): string[] {
    return this.attachmentsByVolume.get(pv);
  }

  attachmentsOnNode(node: string): string[] {
    return this.attachmentsByNode.get(node);
  }

  /** record that `pv` belongs to the claim (from the PV's claimRef or the claim's volumeName) */
  link(pv: string, claim: string) {
    this.claimByVolume.set(pv, claim);
    this.volumeByClaim.set(claim, pv);
  }

  claimOfVolume(pv: string): string | undefined {
    return this.claimByVolume.get(pv);
  }

  volumeOfClaim(claim: string): string | undefined {
    return this.volumeByClaim.get(claim);
  }

  /** forget a volume once neither it nor any attachment of it is left */
  forgetVolume(pv: string) {
    const claim = this.claimByVolume.get(pv);
    this.claimByVolume.delete(pv);
    if (claim && this.volumeByClaim.get(claim) === pv) this.volumeByClaim.delete(claim);
  }

  /** Pods in the API that need the volume, oldest first (they win an exclusive volume). */
  usersOf(pv: string, volume: k8s.V1PersistentVolume | undefined, inf: Informers): PodRef[] {
    const ref = volume?.spec?.claimRef;
    const claim = ref?.name ? claimKey(ref.namespace, ref.name) : this.claimOfVolume(pv);
    if (!claim) return [];
    const [ns, name] = claim.split('/');
    const pvc = inf.pvcs.get(name, ns);
    // the claim must resolve to this volume (or be gone, leaving its pods behind)
    if (pvc && pvc.spec?.volumeName !== pv) return [];
    return this.podsOf(claim)
      .map((k) => inf.pods.get(k.slice(k.indexOf('/') + 1), ns))
      .filter((p): p is k8s.V1Pod => !!p && podHoldsVolumes(p))
      .sort(
        (a, b) => created(a) - created(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
      )
      .map(podRef);
  }
}

function created(p: k8s.V1Pod): number {
  return +new Date(p.metadata?.creationTimestamp ?? 0);
}
