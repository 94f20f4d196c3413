// Strategic-merge metadata for built-in kinds, transcribed from the `patchStrategy` and
// `patchMergeKey` struct tags of k8s.io/api (core/v1, apps/v1, batch/v1, policy/v1) and
// k8s.io/apimachinery meta/v1 as of Kubernetes 1.35.
//
// Only fields that change how a patch merges, or that lead to such a field, are listed.
// Anything absent merges as a map or is replaced whole as a list, which is also what the
// server does for untagged fields. Lists tagged `+listType=map` for server-side apply but
// without a patchStrategy (tolerations, node taints, container statuses, EndpointSlice
// endpoints, ...) are deliberately missing: strategic merge replaces them.

export interface FieldMeta {
  /** Named type of the value, or of each element for lists. */
  type?: string;
  /** 'merge': lists merge by `key`, or as a set when the elements are scalars.
   *  'replace': maps are replaced whole instead of merged. */
  strategy?: 'merge' | 'replace';
  /** patchMergeKey of a list of objects. */
  key?: string;
}

export type TypeSchema = Readonly<Record<string, FieldMeta>>;

const to = (type: string): FieldMeta => ({ type });
const byKey = (key: string, type?: string): FieldMeta => ({ strategy: 'merge', key, type });
/** A list of scalars with patchStrategy=merge: merged as a set union. */
const set: FieldMeta = { strategy: 'merge' };
const replace: FieldMeta = { strategy: 'replace' };
const conditions = byKey('type');
const metadata = to('ObjectMeta');

export const TYPES: Readonly<Record<string, TypeSchema>> = {
  // Every kind has metadata; kinds without a tagged field use this root.
  Object: { metadata },
  ObjectMeta: { ownerReferences: byKey('uid'), finalizers: set },
  /** Status types whose only tagged field is `conditions` (merge on type). */
  ConditionedStatus: { conditions },

  // core/v1 pod machinery, shared by every workload's pod template.
  PodTemplateSpec: { metadata, spec: to('PodSpec') },
  PodSpec: {
    volumes: byKey('name', 'Volume'), // merge,retainKeys
    initContainers: byKey('name', 'Container'),
    containers: byKey('name', 'Container'),
    ephemeralContainers: byKey('name', 'Container'),
    imagePullSecrets: byKey('name'),
    hostAliases: byKey('ip'),
    topologySpreadConstraints: byKey('topologyKey'),
    schedulingGates: byKey('name'),
    resourceClaims: byKey('name'), // merge,retainKeys
  },
  Volume: { ephemeral: to('EphemeralVolumeSource') },
  EphemeralVolumeSource: { volumeClaimTemplate: to('PersistentVolumeClaimTemplate') },
  PersistentVolumeClaimTemplate: { metadata },
  // EphemeralContainerCommon carries the same tags as Container.
  Container: {
    ports: byKey('containerPort'),
    env: byKey('name'),
    volumeMounts: byKey('mountPath'),
    volumeDevices: byKey('devicePath'),
  },
  PodStatus: {
    conditions,
    podIPs: byKey('ip'),
    hostIPs: byKey('ip'),
    resourceClaimStatuses: byKey('name'), // merge,retainKeys
    // container/initContainer/ephemeralContainer statuses are atomic: replaced.
  },

  // core/v1 kinds
  Pod: { metadata, spec: to('PodSpec'), status: to('PodStatus') },
  PodTemplate: { metadata, template: to('PodTemplateSpec') },
  Node: { metadata, spec: to('NodeSpec'), status: to('NodeStatus') },
  NodeSpec: { podCIDRs: set }, // taints: atomic, replaced
  NodeStatus: { conditions, addresses: byKey('type') },
  Service: { metadata, spec: to('ServiceSpec'), status: to('ConditionedStatus') },
  ServiceSpec: { ports: byKey('port') },
  PersistentVolumeClaim: { metadata, status: to('ConditionedStatus') },
  Namespace: { metadata, status: to('ConditionedStatus') },
  ServiceAccount: { metadata, secrets: byKey('name') }, // imagePullSecrets: atomic
  ComponentStatus: { metadata, conditions },
  ReplicationController: { metadata, spec: to('WorkloadSpec'), status: to('ConditionedStatus') },

  // apps/v1 and batch/v1: every workload spec leads to a pod template. DeploymentSpec
  // .strategy is retainKeys, which only matters when a patch carries $retainKeys.
  Workload: { metadata, spec: to('WorkloadSpec'), status: to('ConditionedStatus') },
  WorkloadSpec: { template: to('PodTemplateSpec') }, // volumeClaimTemplates: atomic
  CronJob: { metadata, spec: to('CronJobSpec') },
  CronJobSpec: { jobTemplate: to('JobTemplateSpec') },
  JobTemplateSpec: { metadata, spec: to('WorkloadSpec') },

  // policy/v1
  PodDisruptionBudget: { metadata, spec: to('PodDisruptionBudgetSpec'), status: to('ConditionedStatus') },
  PodDisruptionBudgetSpec: { selector: replace },
};

/** Root type per `group/Kind`; built-in kinds not listed use `Object`. */
export const KINDS: Readonly<Record<string, string>> = {
  '/Pod': 'Pod',
  '/PodTemplate': 'PodTemplate',
  '/Node': 'Node',
  '/Service': 'Service',
  '/PersistentVolumeClaim': 'PersistentVolumeClaim',
  '/Namespace': 'Namespace',
  '/ServiceAccount': 'ServiceAccount',
  '/ComponentStatus': 'ComponentStatus',
  '/ReplicationController': 'ReplicationController',
  'apps/Deployment': 'Workload',
  'apps/StatefulSet': 'Workload',
  'apps/ReplicaSet': 'Workload',
  'apps/DaemonSet': 'Workload',
  'batch/Job': 'Workload',
  'batch/CronJob': 'CronJob',
  'policy/PodDisruptionBudget': 'PodDisruptionBudget',
  // PersistentVolume, ConfigMap, Secret, Event, Endpoints, Lease, EndpointSlice,
  // VolumeAttachment: no tagged field besides metadata.
};

/** API groups compiled into kube-apiserver; their kinds are Go structs, so they accept
 *  strategic merge patch. Everything else is a CRD or an aggregated API (415). */
export const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);
