// ListOptions the way kube-apiserver checks them (ValidateListOptions): resourceVersionMatch
// and sendInitialEvents combinations are 422 Invalid on ListOptions.meta.k8s.io, and a
// resourceVersion the store has not reached yet is waited for (3 s), then 504 with Retry-After.
import type { StatusCause } from './errors.js';
import { StatusError, errors } from './errors.js';

export interface ListOptionsQuery {
  watch: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: string;
  continueToken?: string;
}

const forbidden = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${why}`,
  field,
});
const notSupported = (field: string, v: string, allowed: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(v)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
  field,
});

function watchCauses(q: ListOptionsQuery): StatusCause[] {
  const out: StatusCause[] = [];
  const match = q.resourceVersionMatch ?? '';
  if (q.sendInitialEvents !== undefined && match !== 'NotOlderThan')
    out.push(
      forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ),
    );
  if (match) {
    if (q.sendInitialEvents === undefined)
      out.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    if (match !== 'NotOlderThan') out.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (q.continueToken)
      out.push(
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
  }
  return out;
}

function listCauses(q: ListOptionsQuery): StatusCause[] {
  const out: StatusCause[] = [];
  const match = q.resourceVersionMatch ?? '';
  if (match) {
    if (!q.resourceVersion)
      out.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    if (q.continueToken)
      out.push(
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
    if (match !== 'Exact' && match !== 'NotOlderThan')
      out.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && q.resourceVersion === '0')
      out.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (q.sendInitialEvents !== undefined)
    out.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return out;
}

export function validateListOptions(q: ListOptionsQuery) {
  const causes = q.watch ? watchCauses(q) : listCauses(q);
  if (causes.length) throw errors.invalid('ListOptions', 'meta.k8s.io', '', causes);
}

/** how long the watch cache waits for a resourceVersion it has not seen (blockTimeout) */
export const TOO_LARGE_WAIT_MS = 3_000;

export function tooLargeResourceVersion(wanted: number, current: number) {
  return new StatusError(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${wanted}, current: ${current}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
  );
}

/** Wait until the store reaches rv (a list at a future resourceVersion), or 504. */
export async function waitForResourceVersion(currentRv: () => number, rv: number) {
  const deadline = Date.now() + TOO_LARGE_WAIT_MS;
  while (currentRv() < rv) {
    if (Date.now() >= deadline) throw tooLargeResourceVersion(rv, currentRv());
    await new Promise((r) => setTimeout(r, 25));
  }
}
