// The built-in kinds the embedded API server serves, with the names, short names,
// categories and subresources that kube-apiserver's discovery reports for them.
import type { ResourceInfo } from './types.js';

type Def = [
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  extra?: Partial<ResourceInfo>,
];

const defs: Def[] = [
  ['', 'v1', 'Namespace', 'namespaces', false, { shortNames: ['ns'], subresources: ['status'] }],
  ['', 'v1', 'Node', 'nodes', false, { shortNames: ['no'], subresources: ['status'] }],
  [
    '',
    'v1',
    'Pod',
    'pods',
    true,
    { shortNames: ['po'], categories: ['all'], subresources: ['status', 'binding', 'eviction'] },
  ],
  ['', 'v1', 'Binding', 'bindings', true, { verbs: ['create'] }],
  [
    '',
    'v1',
    'PersistentVolume',
    'persistentvolumes',
    false,
    { shortNames: ['pv'], subresources: ['status'] },
  ],
  [
    '',
    'v1',
    'PersistentVolumeClaim',
    'persistentvolumeclaims',
    true,
    { shortNames: ['pvc'], subresources: ['status'] },
  ],
  ['', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }],
  ['', 'v1', 'ConfigMap', 'configmaps', true, { shortNames: ['cm'] }],
  ['', 'v1', 'Secret', 'secrets', true],
  ['', 'v1', 'ServiceAccount', 'serviceaccounts', true, { shortNames: ['sa'] }],
  [
    '',
    'v1',
    'Service',
    'services',
    true,
    { shortNames: ['svc'], categories: ['all'], subresources: ['status'] },
  ],
  ['discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true],
  ['coordination.k8s.io', 'v1', 'Lease', 'leases', true],
  ['storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false, { shortNames: ['sc'] }],
  ['storage.k8s.io', 'v1', 'VolumeAttachment', 'volumeattachments', false, { subresources: ['status'] }],
  [
    'apps',
    'v1',
    'Deployment',
    'deployments',
    true,
    { shortNames: ['deploy'], categories: ['all'], subresources: ['status', 'scale'] },
  ],
  [
    'apps',
    'v1',
    'ReplicaSet',
    'replicasets',
    true,
    { shortNames: ['rs'], categories: ['all'], subresources: ['status', 'scale'] },
  ],
  [
    'apps',
    'v1',
    'StatefulSet',
    'statefulsets',
    true,
    { shortNames: ['sts'], categories: ['all'], subresources: ['status', 'scale'] },
  ],
  [
    'policy',
    'v1',
    'PodDisruptionBudget',
    'poddisruptionbudgets',
    true,
    { shortNames: ['pdb'], subresources: ['status'] },
  ],
  [
    'admissionregistration.k8s.io',
    'v1',
    'ValidatingWebhookConfiguration',
    'validatingwebhookconfigurations',
    false,
  ],
  [
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
    { shortNames: ['crd', 'crds'], subresources: ['status'] },
  ],
];

export const builtinResources: ResourceInfo[] = defs.map(
  ([group, version, kind, plural, namespaced, extra]) => ({
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    subresources: [],
    ...extra,
  }),
);

/** Groups in the order discovery lists them (core first, as kube-apiserver does). */
export const builtinGroupOrder = [
  '',
  'apps',
  'policy',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
];
