// metav1.MicroTime fields, decoded as kube-apiserver decodes them: exactly six fractional digits
// ("2006-01-02T15:04:05.000000Z07:00"), so a JavaScript Date's ISO form (three digits) is
// refused with a 400 before anything else happens — measured on v1.34.10 (sim/diff, README).
import { errors, StatusError } from '../http/errors.js';
import type { KubeObject, ResourceInfo } from '../resources/types.js';
import { dig } from '../table/fields.js';

const LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
const MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** the MicroTime fields of the built-in kinds that have them, as paths */
const FIELDS: Record<string, string[][]> = {
  'coordination.k8s.io/Lease': [
    ['spec', 'acquireTime'],
    ['spec', 'renewTime'],
  ],
  '/Event': [['eventTime'], ['series', 'lastObservedTime']],
  'events.k8s.io/Event': [['eventTime'], ['series', 'lastObservedTime']],
};

/** Go's error names the rest of the value where parsing stopped: ".123Z" for a three-digit time */
function parseError(value: string): string {
  const rest = SECONDS.test(value) ? value.slice(19) : value;
  const elem = SECONDS.test(value) ? '.000000' : LAYOUT;
  return `parsing time ${JSON.stringify(value)} as ${JSON.stringify(LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(elem)}`;
}

/** The parse error of the first MicroTime field that is not one, if any. */
function microTimeError(r: ResourceInfo, body: KubeObject): string | undefined {
  if (r.custom) return undefined;
  for (const path of FIELDS[`${r.group}/${r.kind}`] ?? []) {
    const v = dig(body, ...path);
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && MICRO.test(v)) continue;
    return typeof v === 'string' ? parseError(v) : `${path.join('.')}: expected a time string`;
  }
  return undefined;
}

/** create and update: the body cannot be decoded (400) */
export function checkMicroTimes(r: ResourceInfo, body: KubeObject) {
  const e = microTimeError(r, body);
  if (e)
    throw errors.badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${e}`);
}

/** patch: the patched object cannot be decoded (kube-apiserver's 422 on field "patch") */
export function checkPatchedMicroTimes(r: ResourceInfo, patched: KubeObject) {
  const e = microTimeError(r, patched);
  if (!e) return;
  const message = `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${e}`;
  throw new StatusError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    name: '',
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}
