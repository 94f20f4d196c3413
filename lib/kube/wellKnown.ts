// Well-known Kubernetes label and taint names, shared by Palisade and the embedded cluster.
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_RACK = 'palisade.dev/rack';
export const LABEL_STS_POD_NAME = 'statefulset.kubernetes.io/pod-name';
export const LABEL_POD_INDEX = 'apps.kubernetes.io/pod-index';
export const LABEL_REVISION_HASH = 'controller-revision-hash';
export const LABEL_POD_TEMPLATE_HASH = 'pod-template-hash';
/** set by the kubelet at registration: the attach/detach controller manages the node's volumes */
export const ANN_CONTROLLER_MANAGED_ATTACH = 'volumes.kubernetes.io/controller-managed-attach-detach';
