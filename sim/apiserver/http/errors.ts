// metav1.Status errors with the reasons, codes and wording of the real kube-apiserver.
import { type ResourceInfo, qualifiedResource } from '../resources/types.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusBody['details'],
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    // metav1.Status drops an empty reason (omitempty): a webhook's denial may carry none
    if (!this.reason) delete (body as Partial<StatusBody>).reason;
    if (this.details) body.details = this.details;
    return body;
  }
}

type Res = Pick<ResourceInfo, 'group' | 'plural'>;

function details(r: Res, name: string | undefined, extra: Partial<NonNullable<StatusBody['details']>> = {}) {
  const d: NonNullable<StatusBody['details']> = {};
  if (name) d.name = name;
  if (r.group) d.group = r.group;
  d.kind = r.plural;
  return { ...d, ...extra };
}

export const errors = {
  notFound: (r: Res, name: string) =>
    new StatusError(404, 'NotFound', `${qualifiedResource(r)} "${name}" not found`, details(r, name)),
  alreadyExists: (r: Res, name: string) =>
    new StatusError(
      409,
      'AlreadyExists',
      `${qualifiedResource(r)} "${name}" already exists`,
      details(r, name),
    ),
  conflict: (r: Res, name: string, why: string) =>
    new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${why}`,
      details(r, name),
    ),
  staleConflict: (r: Res, name: string) =>
    errors.conflict(
      r,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    ),
  invalid: (kind: string, group: string, name: string, causes: StatusCause[]) => {
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    // field.ErrorList.ToAggregate drops repeated messages (the causes keep them)
    const list = [...new Set(causes.map((c) => `${c.field ? `${c.field}: ` : ''}${c.message}`))];
    const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    // an empty name is left out, as metav1.StatusDetails' omitempty does
    const d: NonNullable<StatusBody['details']> = name ? { name, kind } : { kind };
    if (group) d.group = group;
    d.causes = causes;
    return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, d);
  },
  badRequest: (message: string) => new StatusError(400, 'BadRequest', message),
  forbidden: (message: string, r?: Res, name?: string) =>
    new StatusError(403, 'Forbidden', message, r ? details(r, name) : undefined),
  methodNotAllowed: (message = 'the server does not allow this method on the requested resource') =>
    new StatusError(405, 'MethodNotAllowed', message, {}),
  unsupportedMediaType: (message: string) => new StatusError(415, 'UnsupportedMediaType', message),
  notAcceptable: (message: string) => new StatusError(406, 'NotAcceptable', message),
  tooManyRequests: (message: string, extra?: StatusBody['details']) =>
    new StatusError(429, 'TooManyRequests', message, extra),
  internal: (message: string) =>
    new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  expired: (message: string) => new StatusError(410, 'Expired', message),
  unauthorized: () => new StatusError(401, 'Unauthorized', 'Unauthorized'),
  pathNotFound: () =>
    new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}),
};
