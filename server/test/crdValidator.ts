// What a CRD's openAPIV3Schema admits, checked with ajv (already a dependency) plus the
// formats kube-apiserver enforces on custom resources (int32, int64, date-time): the oracle
// the CRD fuzz uses to say "the API server would take this object", and to check that what
// Palisade writes back (a protector's status) is something the schema admits.
import Ajv from 'ajv';
import type { OpenApiSchema } from './fuzzCrd.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A validator for one schema: undefined when the object is admitted, else the first problem. */
export function crdValidator(schema: OpenApiSchema): (o: unknown) => string | undefined {
  // strict off: the x-kubernetes-* keywords are the API server's, not JSON Schema's
  const ajv = new Ajv({ strict: false, allErrors: false });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('date-time', (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)));
  const validate = ajv.compile(schema as object);
  return (o) => {
    if (validate(o)) return undefined;
    const e = validate.errors?.[0];
    return `${e?.instancePath || '(root)'}: ${e?.message}`;
  };
}
