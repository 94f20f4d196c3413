// Storage kinds: PersistentVolume, PersistentVolumeClaim, VolumeAttachment, StorageClass.
import type { KubeObject } from '../../resources/types.js';
import { formatAge } from '../age.js';
import { ageColumn, col, nameColumn } from '../columns.js';
import { dig, list, rec, str } from '../fields.js';
import type { Printer } from '../types.js';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];
const ACCESS_MODES: Array<[string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** Always in the order RWO,ROX,RWX,RWOP whatever the spec's order or duplicates. */
export function accessModes(modes: unknown): string {
  const set = new Set(list(modes).map(str));
  return ACCESS_MODES.filter(([mode]) => set.has(mode))
    .map(([, short]) => short)
    .join(',');
}

// The beta annotation, when present, overrides spec.storageClassName.
function storageClass(o: KubeObject): string {
  const beta = o.metadata.annotations?.[BETA_CLASS_ANNOTATION];
  return beta ?? str(dig(o, 'spec', 'storageClassName'));
}

function phaseOf(o: KubeObject): string {
  // A real server defaults status.phase to Pending when the object is created.
  return o.metadata.deletionTimestamp ? 'Terminating' : str(dig(o, 'status', 'phase')) || 'Pending';
}

const age = (o: KubeObject, now: Date) => formatAge(o.metadata.creationTimestamp, now);
const vac = (o: KubeObject) => str(dig(o, 'spec', 'volumeAttributesClassName')) || '<unset>';
// volumeMode defaults to Filesystem on both PVs and PVCs.
const volumeMode = (o: KubeObject) => str(dig(o, 'spec', 'volumeMode')) || 'Filesystem';

export const persistentVolumePrinter: Printer = {
  columns: [
    nameColumn(),
    col(
      'Capacity',
      'string',
      "capacity is the description of the persistent volume's resources and capacity.",
    ),
    col('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    col(
      'Reclaim Policy',
      'string',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
    ),
    col(
      'Status',
      'string',
      'phase indicates if a volume is available, bound to a claim, or released by a claim.',
    ),
    col(
      'Claim',
      'string',
      'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
    ),
    col('StorageClass', 'string', 'StorageClass of the pv'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    col(
      'Reason',
      'string',
      'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    ),
    ageColumn(),
    col(
      'VolumeMode',
      'string',
      'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      1,
    ),
  ],
  print: (pv, now) => {
    const spec = rec(pv.spec);
    const ref = spec.claimRef;
    const claim =
      ref !== null && typeof ref === 'object' ? `${str(dig(ref, 'namespace'))}/${str(dig(ref, 'name'))}` : '';
    const cells = [
      pv.metadata.name ?? '',
      str(dig(spec, 'capacity', 'storage')) || '0',
      accessModes(spec.accessModes),
    ];
    cells.push(
      str(spec.persistentVolumeReclaimPolicy) || 'Retain',
      phaseOf(pv),
      claim,
      storageClass(pv),
      vac(pv),
    );
    return { cells: [...cells, str(dig(pv, 'status', 'reason')), age(pv, now), volumeMode(pv)] };
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    col(
      'Volume',
      'string',
      'volumeName is the binding reference to the PersistentVolume backing this claim.',
    ),
    col('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    col(
      'Access Modes',
      'string',
      'accessModes contains the actual access modes the volume backing the PVC has.',
    ),
    col('StorageClass', 'string', 'StorageClass of the pvc'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn(),
    col('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
  ],
  print: (pvc, now) => {
    const volume = str(dig(pvc, 'spec', 'volumeName'));
    // Capacity and modes describe the bound volume, so they stay blank until binding.
    const capacity = volume ? str(dig(pvc, 'status', 'capacity', 'storage')) || '0' : '';
    const modes = volume ? accessModes(dig(pvc, 'status', 'accessModes')) : '';
    const cells = [
      pvc.metadata.name ?? '',
      phaseOf(pvc),
      volume,
      capacity,
      modes,
      storageClass(pvc),
      vac(pvc),
    ];
    return { cells: [...cells, age(pvc, now), volumeMode(pvc)] };
  },
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    nameColumn(),
    // The real printer marks this column as a name too; kept for fidelity.
    col(
      'Attacher',
      'string',
      'attacher indicates the name of the volume driver that MUST handle this request.',
      0,
      'name',
    ),
    col('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
    col('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
    col('Attached', 'boolean', 'attached indicates the volume is successfully attached.'),
    ageColumn(),
  ],
  print: (va, now) => {
    const spec = rec(va.spec);
    const pv = str(dig(spec, 'source', 'persistentVolumeName'));
    const attached = dig(va, 'status', 'attached') === true;
    return {
      cells: [va.metadata.name ?? '', str(spec.attacher), pv, str(spec.nodeName), attached, age(va, now)],
    };
  },
};

export const storageClassPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    col(
      'ReclaimPolicy',
      'string',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
    ),
    col(
      'VolumeBindingMode',
      'string',
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
    ),
    col(
      'AllowVolumeExpansion',
      'string',
      'allowVolumeExpansion shows whether the storage class allow volume expand.',
    ),
    ageColumn(),
  ],
  print: (sc, now) => {
    const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((a) => sc.metadata.annotations?.[a] === 'true');
    const name = `${sc.metadata.name ?? ''}${isDefault ? ' (default)' : ''}`;
    const reclaim = str(sc.reclaimPolicy) || 'Delete';
    const binding = str(sc.volumeBindingMode) || 'Immediate';
    return {
      cells: [name, str(sc.provisioner), reclaim, binding, sc.allowVolumeExpansion === true, age(sc, now)],
    };
  },
};
