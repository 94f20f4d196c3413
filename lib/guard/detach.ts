// Detaching a volume by deleting its VolumeAttachment (design §4, seed 000): safe once the
// node is fenced (nothing there can reach the storage) or its Node object is gone. Otherwise
// it must be the case, as far as anyone can tell, that nothing on that node uses the volume:
// no pod in the API uses it there, the node is Ready (so the API's picture of it is current —
// a force-deleted pod's containers on an unreachable node are invisible) and its kubelet no
// longer reports the volume in use (mounted). Kubernetes detaches such a volume on its own.
import { fenceState } from './fenced.js';
import { type FenceFacts, type NodeFacts, readyWords, safe, unsafe, type Verdict } from './types.js';

export interface AttachmentFacts {
  name: string;
  /** spec.source.persistentVolumeName */
  pv?: string;
  nodeName: string;
  attached: boolean;
  /** metadata.deletionTimestamp is set: a detach is already under way */
  deleting: boolean;
}

export interface DetachInput {
  attachment: AttachmentFacts;
  /** "namespace/name" of the pods in the API on that node that use the volume */
  podsUsingVolumeOnThatNode: string[];
  /** undefined: the Node object does not exist */
  node?: NodeFacts;
  nodeFence?: FenceFacts;
  /** the node's kubelet lists the volume in node.status.volumesInUse */
  mountedOnNode?: boolean;
}

export function judgeDetach(i: DetachInput): Verdict {
  const a = i.attachment;
  const notes = a.deleting ? ['a detach is already under way (the VolumeAttachment is being deleted)'] : [];
  const what = a.pv ? `volume ${a.pv}` : 'the volume';
  if (!i.node)
    return safe([
      ...notes,
      `the Node object ${a.nodeName} no longer exists: Kubernetes treats its processes as gone`,
    ]);
  const fence = fenceState(i.node, a.nodeName, i.nodeFence);
  if (fence.fenced) return safe([...notes, fence.text]);
  const reasons: string[] = [];
  if (i.podsUsingVolumeOnThatNode.length > 0)
    reasons.push(
      `pod(s) ${i.podsUsingVolumeOnThatNode.join(', ')} on ${a.nodeName} still use ${what}: detaching pulls the disk from under them (I/O errors, a corrupted filesystem)`,
    );
  if (i.node.ready !== 'True')
    reasons.push(
      `node ${a.nodeName} is ${readyWords(i.node)} and not fenced: the API cannot tell whether a process there (a force-deleted pod's containers, say) still writes to ${what}; once detached it can be attached elsewhere and written from two nodes at once`,
    );
  if (i.mountedOnNode)
    reasons.push(
      `the kubelet on ${a.nodeName} still reports ${what} in use (mounted): it has not finished unmounting`,
    );
  if (reasons.length > 0) {
    const v = unsafe(reasons, [...notes, fence.text]);
    // a healthy node whose pod is gone: only the kubelet's unmount may still be under way, a
    // risk a person can acknowledge without typing the attachment's 68-character name
    const onlyUnmounting = i.node.ready === 'True' && i.podsUsingVolumeOnThatNode.length === 0;
    return onlyUnmounting ? { ...v, confirmation: 'acknowledge' } : v;
  }
  return safe([
    ...notes,
    `no pod uses ${what} on ${a.nodeName}, the node is Ready and its kubelet reports the volume unmounted: Kubernetes detaches it on its own, deleting the VolumeAttachment only hurries it`,
  ]);
}
