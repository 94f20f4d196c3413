// kube-apiserver's 403 for a request its authorizers did not allow (responsewriters.Forbidden):
// what the user cannot do, where, the authorizers' reason after a colon when there is one,
// and details naming the resource and object. Pure.
import { goQuote } from '../../../lib/kube/labelSelector.js';
import { StatusError } from '../http/errors.js';
import type { Attributes } from './attributes.js';

export function forbiddenMessage(a: Attributes): string {
  const user = goQuote(a.user.username);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)}`;
  return a.namespace ? `${what} in the namespace ${goQuote(a.namespace)}` : `${what} at the cluster scope`;
}

/** errors.NewForbidden(GroupResource{group, resource}, name, message[: reason]) */
export function forbidden(a: Attributes, reason = ''): StatusError {
  const message = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  const group = a.resourceRequest ? a.apiGroup : '';
  const resource = a.resourceRequest ? a.resource : '';
  const details: NonNullable<ReturnType<StatusError['toStatus']>['details']> = {};
  if (a.name && (resource || group)) details.name = a.name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  if (!resource && !group) return new StatusError(403, 'Forbidden', `forbidden: ${message}`, details);
  const qualified = group ? `${resource}.${group}` : resource;
  const subject = a.name ? `${qualified} ${goQuote(a.name)}` : qualified;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, details);
}
