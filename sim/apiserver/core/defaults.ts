// Defaults the real API server fills in on create (defaulting + the admission plugins
// that are on by default, e.g. DefaultTolerationSeconds), for the fields that
// controllers and kubectl rely on.
import { defaultRbac } from '../auth/validation.js';
import type { KubeObject } from '../resources/types.js';
import { isObject } from './objects.js';

type Obj = Record<string, any>;

function defaultContainer(c: Obj) {
  c.imagePullPolicy ??=
    typeof c.image === 'string' && (c.image.endsWith(':latest') || !c.image.includes(':'))
      ? 'Always'
      : 'IfNotPresent';
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ??= 'TCP';
}

/** Pod spec defaults, shared by pods and workload templates. */
export function defaultPodSpec(spec: Obj) {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])])
    if (isObject(c)) defaultContainer(c);
}

function qosClass(spec: Obj): string {
  const cs: Obj[] = spec.containers ?? [];
  const any = cs.some(
    (c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length,
  );
  if (!any) return 'BestEffort';
  const guaranteed = cs.every((c) => {
    const l = c.resources?.limits ?? {};
    const r = c.resources?.requests ?? l;
    return l.cpu && l.memory && r.cpu === l.cpu && r.memory === l.memory;
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// DefaultTolerationSeconds: every pod tolerates not-ready/unreachable for 300 s unless it says otherwise.
function defaultTolerations(spec: Obj, seconds: number) {
  const tolerations: Obj[] = (spec.tolerations ??= []);
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const has = tolerations.some(
      (t) =>
        (t.key === key || (!t.key && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute'),
    );
    if (!has) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
  }
}

function defaultPod(o: Obj, opts: DefaultOptions) {
  const spec: Obj = (o.spec ??= {});
  defaultPodSpec(spec);
  spec.serviceAccountName ??= 'default';
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  // the Priority admission plugin, for a pod without a priority class
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  defaultTolerations(spec, opts.defaultTolerationSeconds);
  // PrepareForCreate: clients cannot create a pod with a status of their choosing
  o.status = { phase: 'Pending', qosClass: qosClass(spec) };
}

function defaultWorkload(o: Obj, kind: string) {
  const spec: Obj = (o.spec ??= {});
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  if (isObject(spec.template?.spec)) defaultPodSpec(spec.template.spec);
  if (kind === 'Deployment') {
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
  }
  if (kind === 'StatefulSet') {
    spec.podManagementPolicy ??= 'OrderedReady';
    spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
  }
  o.status = {};
}

/**
 * The TaintNodesByCondition admission plugin: a node is created with the not-ready NoSchedule
 * taint, so nothing is scheduled onto it before the node lifecycle controller has seen it Ready.
 */
function taintNotReady(node: Obj) {
  const spec: Obj = (node.spec ??= {});
  const key = 'node.kubernetes.io/not-ready';
  const taints: Obj[] = spec.taints ?? [];
  if (!taints.some((t) => t?.key === key && t?.effect === 'NoSchedule'))
    spec.taints = [...taints, { key, effect: 'NoSchedule' }];
}

export interface DefaultOptions {
  defaultTolerationSeconds: number;
}

/**
 * kube-apiserver labels every namespace with its own name (kubernetes.io/metadata.name), on
 * create and on every update, so that namespace selectors can pick one namespace by name.
 */
export function labelNamespace(kind: string, group: string, o: KubeObject) {
  if (group !== '' || kind !== 'Namespace' || !o.metadata.name) return;
  o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': o.metadata.name };
}

/**
 * Defaults of the versioned types, applied on every decode (create and update): a CRD
 * without spec.conversion gets the None strategy (SetDefaults_CustomResourceDefinitionSpec).
 */
export function applyWriteDefaults(kind: string, group: string, o: KubeObject) {
  const obj = o as Obj;
  if (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition' && isObject(obj.spec))
    obj.spec.conversion ??= { strategy: 'None' };
  if (group === '' && kind === 'Secret') mergeStringData(obj);
  if (group === 'rbac.authorization.k8s.io') defaultRbac(o);
}

/** kube-apiserver merges a Secret's write-only stringData into data (over existing keys) and drops it. */
function mergeStringData(obj: Obj) {
  if (!isObject(obj.stringData)) return;
  const data: Record<string, string> = isObject(obj.data) ? obj.data : {};
  for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
  obj.data = data;
  delete obj.stringData;
}

export function applyCreateDefaults(kind: string, group: string, o: KubeObject, opts: DefaultOptions) {
  const obj = o as Obj;
  applyWriteDefaults(kind, group, o);
  if (group === '' && kind === 'Pod') defaultPod(obj, opts);
  else if (group === 'apps') defaultWorkload(obj, kind);
  else if (group === '' && kind === 'Namespace') {
    labelNamespace(kind, group, o);
    obj.spec = { finalizers: ['kubernetes'], ...(obj.spec ?? {}) };
    obj.status = { phase: 'Active' };
  } else if (group === '' && kind === 'Service') {
    obj.spec ??= {};
    obj.spec.type ??= 'ClusterIP';
    obj.spec.sessionAffinity ??= 'None';
    for (const p of obj.spec.ports ?? []) {
      p.protocol ??= 'TCP';
      p.targetPort ??= p.port;
    }
  } else if (group === '' && kind === 'Secret') obj.type ??= 'Opaque';
  else if (group === '' && kind === 'Node') taintNotReady(obj);
  else if (group === '' && kind === 'PersistentVolumeClaim') obj.status = { phase: 'Pending' };
  else if (group === '' && kind === 'PersistentVolume') {
    obj.spec ??= {};
    obj.spec.persistentVolumeReclaimPolicy ??= 'Retain';
    obj.spec.volumeMode ??= 'Filesystem';
    obj.status = { phase: 'Pending' };
  } else if (group === 'policy' && kind === 'PodDisruptionBudget')
    obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
}

/** Kinds whose metadata.generation counts spec changes (pods too since v1.34: PodObservedGenerationTracking). */
export function tracksGeneration(kind: string, group: string, custom: boolean): boolean {
  return (
    custom ||
    (group === '' && kind === 'Pod') ||
    group === 'apps' ||
    group === 'policy' ||
    (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition')
  );
}
