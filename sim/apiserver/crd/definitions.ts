// CustomResourceDefinition handling: validate a CRD, derive the resources it serves
// and the status the real apiextensions-apiserver reports for an established CRD.
import type { StatusCause } from '../http/errors.js';
import type { KubeObject, PrinterColumn, ResourceInfo } from '../resources/types.js';
import { nowRfc3339 } from '../core/objects.js';

type Obj = Record<string, any>;

const invalid = (field: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
  field,
});
const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});

export function validateCrd(crd: KubeObject): StatusCause[] {
  const spec: Obj = (crd as Obj).spec ?? {};
  const names: Obj = spec.names ?? {};
  const out: StatusCause[] = [];
  if (!spec.group) out.push(required('spec.group'));
  if (!names.plural) out.push(required('spec.names.plural'));
  if (!names.kind) out.push(required('spec.names.kind'));
  if (spec.group && names.plural && crd.metadata.name !== `${names.plural}.${spec.group}`) {
    out.push(invalid('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (!['Namespaced', 'Cluster'].includes(spec.scope)) {
    out.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }
  const versions: Obj[] = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) out.push(required('spec.versions'));
  if (versions.length && versions.filter((v) => v.storage).length !== 1) {
    out.push(
      invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    );
  }
  versions.forEach((v, i) => {
    if (!v.name) out.push(required(`spec.versions[${i}].name`));
    if (!v.schema?.openAPIV3Schema) out.push(required(`spec.versions[${i}].schema.openAPIV3Schema`));
  });
  return out;
}

function printerColumns(v: Obj): PrinterColumn[] | undefined {
  const cols = v.additionalPrinterColumns;
  // the real server adds an Age column when a CRD declares none
  if (!Array.isArray(cols) || cols.length === 0)
    return [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return cols.map((c: Obj) => ({
    name: c.name,
    type: c.type,
    jsonPath: c.jsonPath,
    description: c.description,
    priority: c.priority ?? 0,
    format: c.format,
  }));
}

export function crdResources(crd: KubeObject): ResourceInfo[] {
  const spec: Obj = (crd as Obj).spec;
  const names: Obj = spec.names;
  return (spec.versions as Obj[])
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural,
      singular: names.singular ?? String(names.kind).toLowerCase(),
      namespaced: spec.scope === 'Namespaced',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      subresources: [
        ...(v.subresources?.status ? ['status'] : []),
        ...(v.subresources?.scale ? ['scale'] : []),
      ],
      printerColumns: printerColumns(v),
      custom: true,
    }));
}

export function storageVersion(crd: KubeObject): string {
  return ((crd as Obj).spec.versions as Obj[]).find((v) => v.storage)!.name;
}

export function establishedStatus(crd: KubeObject): Obj {
  const spec: Obj = (crd as Obj).spec;
  const t = nowRfc3339();
  const names = {
    ...spec.names,
    singular: spec.names.singular ?? String(spec.names.kind).toLowerCase(),
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
  };
  return {
    acceptedNames: names,
    storedVersions: [storageVersion(crd)],
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: t,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: t,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
  };
}
