// Well-known names of the Kubernetes volume machinery (PV controller, external
// provisioner, attach/detach controller), shared by the simulated control plane and
// Palisade's own views of volume state.

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
/** set by the scheduler on a WaitForFirstConsumer claim: provision for this node */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';

/** Why a volume may or may not leave a node; see decideDetach. */
export const DETACH_KINDS = [
  'in-use-by-pod',
  'mounted',
  'unmounted',
  'node-gone',
  'out-of-service',
  'force-timeout',
] as const;
export type DetachKind = (typeof DETACH_KINDS)[number];
