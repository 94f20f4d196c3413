// Field-selector fields each kind supports, with their values for one object.
import type { KubeObject, ResourceInfo } from '../resources/types.js';

type Obj = Record<string, any>;
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

const extractors: Record<string, (o: Obj) => Record<string, string>> = {
  '/pods': (o) => ({
    'spec.nodeName': str(o.spec?.nodeName),
    'spec.restartPolicy': str(o.spec?.restartPolicy),
    'spec.schedulerName': str(o.spec?.schedulerName),
    'spec.serviceAccountName': str(o.spec?.serviceAccountName),
    'status.phase': str(o.status?.phase),
    'status.podIP': str(o.status?.podIP),
    'status.nominatedNodeName': str(o.status?.nominatedNodeName),
  }),
  '/nodes': (o) => ({ 'spec.unschedulable': str(o.spec?.unschedulable ?? false) }),
  '/namespaces': (o) => ({ 'status.phase': str(o.status?.phase) }),
  '/secrets': (o) => ({ type: str(o.type) }),
  '/events': (o) => ({
    'involvedObject.kind': str(o.involvedObject?.kind),
    'involvedObject.namespace': str(o.involvedObject?.namespace),
    'involvedObject.name': str(o.involvedObject?.name),
    'involvedObject.uid': str(o.involvedObject?.uid),
    'involvedObject.apiVersion': str(o.involvedObject?.apiVersion),
    'involvedObject.resourceVersion': str(o.involvedObject?.resourceVersion),
    'involvedObject.fieldPath': str(o.involvedObject?.fieldPath),
    reason: str(o.reason),
    reportingComponent: str(o.reportingComponent),
    source: str(o.source?.component),
    type: str(o.type),
  }),
};

export function fieldsOf(r: ResourceInfo, o: KubeObject): Record<string, string> {
  const base: Record<string, string> = { 'metadata.name': str(o.metadata.name) };
  if (r.namespaced) base['metadata.namespace'] = str(o.metadata.namespace);
  const extra = r.custom ? undefined : extractors[`${r.group}/${r.plural}`];
  return extra ? { ...base, ...extra(o as Obj) } : base;
}

export function supportedFields(r: ResourceInfo): string[] {
  const sample = fieldsOf(r, { metadata: {} });
  return Object.keys(sample);
}
