// Shape of one served resource (a kind at a group/version), shared by discovery,
// routing, storage, printing and admission.

export interface PrinterColumn {
  name: string;
  type: string; // integer | number | string | boolean | date
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export interface ResourceInfo {
  group: string; // '' for the core group
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** subresources this resource serves: status, binding, eviction, scale */
  subresources: string[];
  /** CRD printer columns (built-in kinds have hand-written printers) */
  printerColumns?: PrinterColumn[];
  /** verbs when not the full set (e.g. bindings: create only) */
  verbs?: string[];
  /** true for kinds defined by a CustomResourceDefinition */
  custom?: boolean;
}

/** A Kubernetes object as stored and served: plain JSON. */
export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
};

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

export function apiVersionOf(r: Pick<ResourceInfo, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** "pods" or "deployments.apps": the qualified resource name used in error messages. */
export function qualifiedResource(r: Pick<ResourceInfo, 'group' | 'plural'>): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}
