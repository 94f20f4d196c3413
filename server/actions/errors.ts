// The seam's errors: a code the transport maps one to one (tRPC uses the same names) and a
// message written for the person in front of the dialog.
import { errorText } from '../../lib/kube/errorText.js';

export type ActionErrorCode =
  | 'BAD_REQUEST'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'INTERNAL_SERVER_ERROR';

export class ActionError extends Error {
  constructor(
    readonly code: ActionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ActionError';
  }
}

export const statusOf = (e: unknown) => (e as { code?: unknown } | undefined)?.code;

/** A failed write, in words: 409 "changed since you looked", 404, RBAC's 403, 429 not now, the rest as is. */
export function fromApi(e: unknown, what: string): ActionError {
  if (e instanceof ActionError) return e;
  const text = errorText(e);
  switch (statusOf(e)) {
    case 409:
      return new ActionError('CONFLICT', `${what} changed since you looked; review and try again (${text})`);
    case 404:
      return new ActionError('NOT_FOUND', `${what} no longer exists (${text})`);
    case 403:
      return new ActionError('FORBIDDEN', `the cluster refused: ${text}`);
    case 429:
      // deletion protection (or a disruption budget) refusing for now, or the API server shedding load
      return new ActionError('PRECONDITION_FAILED', `${what} was refused for now: ${text}`);
    case 400:
    case 422:
      return new ActionError('BAD_REQUEST', `the API server rejected the request: ${text}`);
    default:
      return new ActionError('INTERNAL_SERVER_ERROR', `${what}: ${text}`);
  }
}

/** A read that may find nothing: undefined on 404, anything else is an error. */
export async function orMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}
