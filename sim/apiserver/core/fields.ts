// Field-selector fields each kind supports, and their values for one object. Getters
// are evaluated only for the fields a selector names (a kubelet-style
// spec.nodeName list over 150 000 pods must not build 150 000 maps).
import type { KubeObject, ResourceInfo } from '../resources/types.js';

type Obj = Record<string, any>;
type Getter = (o: Obj) => unknown;
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

const byResource: Record<string, Record<string, Getter>> = {
  '/pods': {
    'spec.nodeName': (o) => o.spec?.nodeName,
    'spec.restartPolicy': (o) => o.spec?.restartPolicy,
    'spec.schedulerName': (o) => o.spec?.schedulerName,
    'spec.serviceAccountName': (o) => o.spec?.serviceAccountName,
    'status.phase': (o) => o.status?.phase,
    'status.podIP': (o) => o.status?.podIP,
    'status.nominatedNodeName': (o) => o.status?.nominatedNodeName,
  },
  '/nodes': { 'spec.unschedulable': (o) => o.spec?.unschedulable ?? false },
  '/namespaces': { 'status.phase': (o) => o.status?.phase },
  '/secrets': { type: (o) => o.type },
  '/events': {
    'involvedObject.kind': (o) => o.involvedObject?.kind,
    'involvedObject.namespace': (o) => o.involvedObject?.namespace,
    'involvedObject.name': (o) => o.involvedObject?.name,
    'involvedObject.uid': (o) => o.involvedObject?.uid,
    'involvedObject.apiVersion': (o) => o.involvedObject?.apiVersion,
    'involvedObject.resourceVersion': (o) => o.involvedObject?.resourceVersion,
    'involvedObject.fieldPath': (o) => o.involvedObject?.fieldPath,
    reason: (o) => o.reason,
    reportingComponent: (o) => o.reportingComponent,
    source: (o) => o.source?.component,
    type: (o) => o.type,
  },
};

// built once per resource: a selector over 150 000 objects must not rebuild it per object
const cache = new WeakMap<ResourceInfo, Record<string, Getter>>();

function getters(r: ResourceInfo): Record<string, Getter> {
  let g = cache.get(r);
  if (!g) cache.set(r, (g = buildGetters(r)));
  return g;
}

function buildGetters(r: ResourceInfo): Record<string, Getter> {
  const base: Record<string, Getter> = { 'metadata.name': (o) => o.metadata?.name };
  if (r.namespaced) base['metadata.namespace'] = (o) => o.metadata?.namespace;
  const extra = r.custom ? undefined : byResource[`${r.group}/${r.plural}`];
  return extra ? { ...base, ...extra } : base;
}

/** Values of the named fields (all supported fields when none are named). */
export function fieldsOf(r: ResourceInfo, o: KubeObject, wanted?: string[]): Record<string, string> {
  const g = getters(r);
  const out: Record<string, string> = {};
  for (const f of wanted ?? Object.keys(g)) if (g[f]) out[f] = str(g[f](o as Obj));
  return out;
}

export function supportedFields(r: ResourceInfo): string[] {
  return Object.keys(getters(r));
}
