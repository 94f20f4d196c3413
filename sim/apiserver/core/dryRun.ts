// Server-side dry run: one rule for every place a request can ask for it (the dryRun query
// parameter, the body of a DELETE, an Eviction's deleteOptions), so no path can mutate
// while another says "dry". "All" is the only value kube-apiserver accepts.
import { errors } from '../http/errors.js';

/** True when the values ask for a dry run; a 400 for anything but a list of "All". */
export function dryRunRequested(values: unknown): boolean {
  if (values === undefined || values === null) return false;
  if (!Array.isArray(values))
    throw errors.badRequest(`dryRun must be a list of strings, got ${JSON.stringify(values)}`);
  for (const v of values)
    if (v !== 'All') throw errors.badRequest(`Invalid dryRun value: "${v}"; supported values: "All"`);
  return values.length > 0;
}

/** The CreateOptions/UpdateOptions an admission webhook sees in request.options. */
export function writeOptionsForReview(o: { dryRun: boolean; fieldManager?: string }) {
  const out: Record<string, unknown> = {};
  if (o.dryRun) out.dryRun = ['All'];
  if (o.fieldManager) out.fieldManager = o.fieldManager;
  return out;
}
