// Unique instance IDs (seed 002): the names everything agrees on — the annotation that holds a
// workload's map, the opt-in label, the environment a pod reads, the endpoint's paths and the
// shapes of its answers. Pure: the browser, the server, the simulated pods and the client
// library all import it.

/** On the Deployment, StatefulSet or Job itself: only the JSON map {"<id>": "<pod name>"}. */
export const INSTANCE_IDS_ANNOTATION = 'palisade.dev/instance-ids';

/**
 * Beside the map: the node and bootID each holder ran on when it took its ID
 * {"<pod>": {"node": "…", "bootID": "…"}} (lib/instanceIds/holders.ts).
 */
export const INSTANCE_ID_NODES_ANNOTATION = 'palisade.dev/instance-id-nodes';

/**
 * The opt-in, a label on the workload (value "true"): the console lists the workload before any
 * pod has taken an ID, and the embedded cluster's scenarios set it. A different key from the
 * map's annotation, so neither is ever mistaken for the other.
 */
export const INSTANCE_IDS_LABEL = 'palisade.dev/instance-ids-enabled';

/** The environment variable that tells a pod's program where Palisade's endpoint is. */
export const INSTANCE_IDS_URL_ENV = 'PALISADE_INSTANCE_IDS_URL';

/**
 * The ConfigMap (in the workload's namespace) a pod template may take that URL from
 * (`valueFrom.configMapKeyRef`), so the template need not know the console's address; Palisade
 * writes it beside the embedded cluster.
 */
export const INSTANCE_IDS_CONFIGMAP = 'palisade-instance-ids';
export const INSTANCE_IDS_CONFIGMAP_KEY = 'url';

export const ACQUIRE_PATH = '/instance-ids/acquire';
export const RELEASE_PATH = '/instance-ids/release';

/** The kinds whose object carries the map: what survives a rollout (not a ReplicaSet). */
export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'Job';

export interface WorkloadRef {
  kind: WorkloadKind;
  namespace: string;
  name: string;
}

export const workloadKey = (w: WorkloadRef) => `${w.namespace}/${w.kind}/${w.name}`;

/** What a pod sends to acquire or release: it may ask only for itself. */
export interface InstanceIdRequest {
  namespace: string;
  pod: string;
}

export interface AcquireAnswer {
  /** the pod's instance ID, in [0, replicas) */
  id: number;
  /** the instance count when the ID was given */
  replicas: number;
  workload: WorkloadRef;
  /** how many writes lost a compare-and-swap (409 Conflict) before this one held */
  retries: number;
}

export interface ReleaseAnswer {
  /** the ID given back, or null when the pod held none */
  released: number | null;
  workload: WorkloadRef;
  retries: number;
}

/** Every refusal of the endpoint: a machine-readable code and a sentence saying what to do. */
export interface InstanceIdRefusal {
  code: RefusalCode;
  error: string;
  /** holder_not_stopped: the holders not known to have stopped, and why (lib/guard/stopped.ts) */
  waiting?: WaitingHolder[];
}

/** An ID whose holder no longer runs as far as the API says, but is not known to have stopped. */
export interface WaitingHolder {
  id: number;
  pod: string;
  node?: string;
  /** lib/guard/stopped.ts RunningReason: node-unreachable, terminating, unconfirmed-removal, … */
  reason: string;
  /** "metrics-…-b48lf on c2-2: node unreachable (Ready=Unknown), not fenced" */
  text: string;
}

export type RefusalCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'not_a_pod_token'
  | 'not_this_pod'
  | 'read_only'
  | 'pod_not_found'
  | 'pod_terminating'
  | 'no_workload'
  | 'workload_not_found'
  | 'invalid_map'
  | 'no_free_id'
  /** no ID is free, and a holder that may have stopped is not known to have: ask again later */
  | 'holder_not_stopped'
  /** the workload has not opted in, or its namespace is not in palisade.yaml instanceIds.namespaces */
  | 'not_enabled'
  /** the API server forbade Palisade a read or write it needs: the missing grant is named */
  | 'not_permitted'
  | 'rejected'
  | 'deadline'
  | 'cluster_error';
