// Hand-written printers of built-in kinds, keyed by "group/Kind" so every served version of
// a kind (e.g. policy/v1 and v1beta1) prints the same way, as the real server does.
import type { Printer } from '../types.js';
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from './apps.js';
import * as cluster from './cluster.js';
import * as core from './core.js';
import { eventPrinter } from './event.js';
import { nodePrinter } from './node.js';
import { podPrinter } from './pod.js';
import * as storage from './storage.js';

const printers = new Map<string, Printer>([
  ['/Pod', podPrinter],
  ['/Node', nodePrinter],
  ['/Namespace', core.namespacePrinter],
  ['/Event', eventPrinter],
  ['events.k8s.io/Event', eventPrinter],
  ['/ConfigMap', core.configMapPrinter],
  ['/Secret', core.secretPrinter],
  ['/ServiceAccount', core.serviceAccountPrinter],
  ['/Service', core.servicePrinter],
  ['/Endpoints', core.endpointsPrinter],
  ['/PersistentVolume', storage.persistentVolumePrinter],
  ['/PersistentVolumeClaim', storage.persistentVolumeClaimPrinter],
  ['storage.k8s.io/VolumeAttachment', storage.volumeAttachmentPrinter],
  ['storage.k8s.io/StorageClass', storage.storageClassPrinter],
  ['apps/Deployment', deploymentPrinter],
  ['apps/ReplicaSet', replicaSetPrinter],
  ['apps/StatefulSet', statefulSetPrinter],
  ['apps/DaemonSet', daemonSetPrinter],
  ['discovery.k8s.io/EndpointSlice', cluster.endpointSlicePrinter],
  ['coordination.k8s.io/Lease', cluster.leasePrinter],
  ['policy/PodDisruptionBudget', cluster.podDisruptionBudgetPrinter],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', cluster.validatingWebhookPrinter],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', cluster.mutatingWebhookPrinter],
  ['rbac.authorization.k8s.io/RoleBinding', cluster.roleBindingPrinter],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', cluster.clusterRoleBindingPrinter],
]);

export function builtinPrinter(group: string, kind: string): Printer | undefined {
  return printers.get(`${group}/${kind}`);
}
