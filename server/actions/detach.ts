// Detach a volume: DELETE the VolumeAttachment with preconditions {uid, resourceVersion}. The
// CSI attacher's finalizer keeps the object until the storage has let go of the node. The guard
// decides on the pods using the volume on that node, the node, its fence and whether its
// kubelet still reports the volume mounted — all read live.
import { judgeDetach } from '../../lib/guard/detach.js';
import type { ActionApis } from './actor.js';
import { ActionError, orMissing } from './errors.js';
import { deletionOutcome, type Loaded, nodeSummary } from './kind.js';
import { fenceOfNode, mountedOn, nodeFacts, podsUsingClaim, readNode } from './live.js';

export async function loadDetach(apis: ActionApis, name: string): Promise<Loaded> {
  const va = await orMissing(apis.storage.readVolumeAttachment({ name }));
  if (!va) throw new ActionError('NOT_FOUND', `VolumeAttachment ${name} not found`);
  const nodeName = va.spec.nodeName;
  const pvName = va.spec.source.persistentVolumeName;
  const [node, fence, pv] = await Promise.all([
    readNode(apis, nodeName),
    fenceOfNode(apis, nodeName),
    pvName ? orMissing(apis.core.readPersistentVolume({ name: pvName })) : undefined,
  ]);
  const claim = pv?.spec?.claimRef;
  const pods =
    claim?.namespace && claim.name
      ? await podsUsingClaim(apis, nodeName, { namespace: claim.namespace, name: claim.name })
      : [];
  const handle = pv?.spec?.csi?.volumeHandle ?? pvName;
  const driver = pv?.spec?.csi?.driver ?? va.spec.attacher;
  const uid = va.metadata!.uid!;
  const verdict = judgeDetach({
    attachment: {
      name,
      pv: pvName,
      nodeName,
      attached: va.status?.attached ?? false,
      deleting: !!va.metadata?.deletionTimestamp,
    },
    podsUsingVolumeOnThatNode: pods,
    node: node && nodeFacts(node),
    nodeFence: fence,
    mountedOnNode: handle ? mountedOn(node, driver, handle) : false,
  });
  const vol = pvName ? `volume ${pvName}` : 'the volume';
  return {
    action: 'detachVolume',
    target: {
      kind: 'VolumeAttachment',
      apiVersion: 'storage.k8s.io/v1',
      name,
      uid,
      resourceVersion: va.metadata!.resourceVersion!,
    },
    verdict,
    will: [
      `DELETE VolumeAttachment ${name} with preconditions {uid, resourceVersion}`,
      `the CSI attacher (${va.spec.attacher}) detaches ${vol} from ${nodeName} at the storage, then removes its finalizer and the object goes`,
      `${vol} can then be attached to another node, for a pod that waits for it`,
    ],
    node: nodeSummary(nodeName, node, fence),
    related: pvName ? { kind: 'PersistentVolume', apiVersion: 'v1', name: pvName } : undefined,
    what: `deleted VolumeAttachment ${name} (${vol} from node ${nodeName})`,
    write: async ({ dryRun, resourceVersion }) => {
      const gone = await apis.storage.deleteVolumeAttachment({
        name,
        body: { preconditions: { uid, resourceVersion }, ...(dryRun ? { dryRun: ['All'] } : {}) },
      });
      return deletionOutcome(gone, dryRun, `VolumeAttachment ${name}`);
    },
  };
}
