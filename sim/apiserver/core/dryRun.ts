// Server-side dry run: one rule for every place a request can ask for it (the dryRun query
// parameter, the body of a DELETE, an Eviction's deleteOptions), so no path can mutate
// while another says "dry". "All" is the only value kube-apiserver accepts.
import { errors } from '../http/errors.js';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/**
 * True when the values ask for a dry run. Anything but a list of "All" is refused as
 * kube-apiserver's ValidateDryRun does: 422 Invalid on the request's options kind.
 */
export function dryRunRequested(values: unknown, kind: OptionsKind = 'DeleteOptions'): boolean {
  if (values === undefined || values === null) return false;
  if (!Array.isArray(values))
    throw errors.badRequest(`dryRun must be a list of strings, got ${JSON.stringify(values)}`);
  if (values.some((v) => v !== 'All'))
    throw errors.invalid(kind, 'meta.k8s.io', '', [
      {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(values)}: supported values: "All"`,
        field: 'dryRun',
      },
    ]);
  return values.length > 0;
}

/** The CreateOptions/UpdateOptions an admission webhook sees in request.options. */
export function writeOptionsForReview(o: { dryRun: boolean; fieldManager?: string }) {
  const out: Record<string, unknown> = {};
  if (o.dryRun) out.dryRun = ['All'];
  if (o.fieldManager) out.fieldManager = o.fieldManager;
  return out;
}
