// Validation of built-in kinds: the subset of kube-apiserver's rules that clients and
// controllers depend on (required fields, selector/template agreement, immutable pod
// specs), with the real field paths and message shapes.
import {
  type LabelSelector,
  labelSelectorMatches,
  validateLabelSelector,
} from '../../../lib/kube/labelSelector.js';
import { matchConditionsUnchanged, validateMatchConditions } from '../admission/matchConditions.js';
import { validateRbac } from '../auth/validation.js';
import type { StatusCause } from '../http/errors.js';
import type { KubeObject } from '../resources/types.js';
import { isObject, sameValue } from './objects.js';

type Obj = Record<string, any>;
const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});
const invalid = (field: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
  field,
});
const forbidden = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${why}`,
  field,
});

function validateContainers(spec: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) return [required(`${path}.containers`)];
  const seen = new Set<string>();
  containers.forEach((c: Obj, i: number) => {
    const p = `${path}.containers[${i}]`;
    if (!isObject(c)) {
      out.push(invalid(p, c, 'must be an object'));
      return;
    }
    if (!c.name) out.push(required(`${p}.name`));
    else if (seen.has(c.name))
      out.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: "${c.name}"`,
        field: `${p}.name`,
      });
    seen.add(c.name);
    if (!c.image) out.push(required(`${p}.image`));
  });
  return out;
}

function validateWorkload(o: Obj, kind: string): StatusCause[] {
  const spec: Obj = o.spec ?? {};
  const out: StatusCause[] = [];
  if (typeof spec.replicas === 'number' && spec.replicas < 0)
    out.push(invalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  if (!isObject(spec.selector)) return [...out, required('spec.selector')];
  for (const m of validateLabelSelector(spec.selector)) out.push(invalid('spec.selector', spec.selector, m));
  const labels = spec.template?.metadata?.labels ?? {};
  if (
    !labelSelectorMatches(spec.selector as LabelSelector, labels, { nilMatches: false }) ||
    Object.keys(spec.selector).length === 0
  ) {
    out.push(invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  if (!isObject(spec.template?.spec)) out.push(required('spec.template.spec'));
  else out.push(...validateContainers(spec.template.spec, 'spec.template.spec'));
  if (kind === 'StatefulSet' && !spec.serviceName && spec.serviceName !== '') {
    // real validation accepts an empty serviceName; nothing to do
  }
  return out;
}

function validatePdb(o: Obj): StatusCause[] {
  const spec: Obj = o.spec ?? {};
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    return [invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set')];
  }
  return [];
}

/**
 * validateValidatingWebhookConfiguration, in its order: each webhook's own fields (name,
 * failurePolicy, sideEffects, timeoutSeconds, clientConfig, matchConditions), then its
 * admissionReviewVersions, then its name's uniqueness. `checkConditions` is false on an
 * update that changes no webhook's matchConditions.
 */
function validateWebhooks(o: Obj, checkConditions = true): StatusCause[] {
  const out: StatusCause[] = [];
  const names = new Set<string>();
  (o.webhooks ?? []).forEach((w: Obj, i: number) => {
    const p = `webhooks[${i}]`;
    if (!w.name) out.push(required(`${p}.name`));
    else if (w.name.split('.').length < 3)
      out.push(
        invalid(`${p}.name`, w.name, 'should be a domain with at least three segments separated by dots'),
      );
    if (w.failurePolicy && !['Ignore', 'Fail'].includes(w.failurePolicy))
      out.push(invalid(`${p}.failurePolicy`, w.failurePolicy, 'supported values: "Fail", "Ignore"'));
    if (!['None', 'NoneOnDryRun'].includes(w.sideEffects))
      out.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(w.sideEffects ?? '')}: supported values: "None", "NoneOnDryRun"`,
        field: `${p}.sideEffects`,
      });
    if (w.timeoutSeconds !== undefined && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30))
      out.push(
        invalid(
          `${p}.timeoutSeconds`,
          w.timeoutSeconds,
          'the timeout value must be between 1 and 30 seconds',
        ),
      );
    const cc: Obj = w.clientConfig ?? {};
    if (!cc.url === !cc.service) out.push(required(`${p}.clientConfig`));
    if (cc.url && !String(cc.url).startsWith('https://'))
      out.push(invalid(`${p}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme"));
    if (checkConditions) out.push(...validateMatchConditions(w.matchConditions, `${p}.matchConditions`));
    if (!Array.isArray(w.admissionReviewVersions) || !w.admissionReviewVersions.includes('v1'))
      out.push(required(`${p}.admissionReviewVersions`));
    if (w.name && names.has(w.name))
      out.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: "${w.name}"`,
        field: `${p}.name`,
      });
    if (w.name) names.add(w.name);
  });
  return out;
}

/** kube-apiserver's TotalAnnotationSizeLimitB: keys and values together, in bytes */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** ValidateAnnotationsSize, on every kind (custom ones too), on create and on update. */
export function validateAnnotationsSize(annotations: Record<string, unknown> | undefined): StatusCause[] {
  if (!annotations) return [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations))
    size += Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : '');
  if (size <= TOTAL_ANNOTATION_SIZE_LIMIT) return [];
  return [
    {
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
      field: 'metadata.annotations',
    },
  ];
}

export function validateCreate(kind: string, group: string, o: KubeObject): StatusCause[] {
  const obj = o as Obj;
  if (group === '' && kind === 'Pod') return validateContainers(obj.spec ?? {}, 'spec');
  if (group === 'apps') return validateWorkload(obj, kind);
  if (group === 'policy') return validatePdb(obj);
  if (group === 'admissionregistration.k8s.io') return validateWebhooks(obj);
  if (group === 'rbac.authorization.k8s.io') return validateRbac(o);
  return [];
}

// Pod spec is immutable except for these fields, as in ValidatePodUpdate. Shallow copies
// keep this cheap on the kubelet's hot path (status writes never touch the spec).
function podSpecUpdate(oldSpec: Obj, newSpec: Obj): StatusCause[] {
  if (oldSpec === newSpec) return [];
  const strip = (s: Obj) => {
    const { activeDeadlineSeconds: _a, tolerations: _t, ...rest } = s;
    for (const list of ['containers', 'initContainers']) {
      if (Array.isArray(rest[list])) rest[list] = rest[list].map((c: Obj) => ({ ...c, image: undefined }));
    }
    return rest;
  };
  if (sameValue(strip(oldSpec), strip(newSpec))) return [];
  return [
    forbidden(
      'spec',
      'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    ),
  ];
}

function immutable(field: string, a: unknown, b: unknown): StatusCause[] {
  return sameValue(a, b) ? [] : [invalid(field, b, 'field is immutable')];
}

export function validateUpdate(kind: string, group: string, o: KubeObject, old: KubeObject): StatusCause[] {
  const [n, p] = [o as Obj, old as Obj];
  if (group === '' && kind === 'Pod') return podSpecUpdate(p.spec ?? {}, n.spec ?? {});
  if (group === 'apps')
    return [...validateWorkload(n, kind), ...immutable('spec.selector', p.spec?.selector, n.spec?.selector)];
  if (group === 'storage.k8s.io' && kind === 'VolumeAttachment') return immutable('spec', p.spec, n.spec);
  if (group === 'rbac.authorization.k8s.io') return validateRbac(o, old);
  if (group === 'admissionregistration.k8s.io')
    return validateWebhooks(n, !matchConditionsUnchanged(n.webhooks, p.webhooks));
  if (group === '' && kind === 'PersistentVolumeClaim' && p.spec?.volumeName)
    return immutable('spec.volumeName', p.spec.volumeName, n.spec?.volumeName);
  return validateCreate(kind, group, o);
}
