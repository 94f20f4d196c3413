// What a person may do, asked of the cluster (SelfSubjectAccessReview), and kube-apiserver's own
// words when the answer is no. Palisade refuses an action it has asked about with exactly the
// text the API server would have answered to the request itself, so a refusal reads the same
// in the console, in kubectl and in the API server's audit log.

/** authorization.k8s.io/v1 ResourceAttributes / NonResourceAttributes, as SelfSubjectAccessReview takes them. */
export type AccessAttributes =
  | {
      verb: string;
      group?: string;
      resource: string;
      subresource?: string;
      namespace?: string;
      name?: string;
    }
  | { verb: string; path: string };

export interface AccessDecision {
  allowed: boolean;
  /** the authorizer's reason, when it gave one */
  reason?: string;
  /** kube-apiserver's Forbidden message for this request, when not allowed */
  message?: string;
}

const isPath = (a: AccessAttributes): a is { verb: string; path: string } => 'path' in a;

/** "pods", or "nodefences.palisade.dev" for a group: a GroupResource as kube-apiserver prints it. */
export function qualifiedResource(group: string | undefined, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** The sentence behind "is forbidden:", as kube-apiserver's forbiddenMessage writes it. */
function because(a: AccessAttributes, user: string): string {
  if (isPath(a)) return `User "${user}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.group ?? ''}" ${where}`;
}

/** kube-apiserver's 403 message for a denied request (responsewriters.Forbidden + errors.NewForbidden). */
export function forbiddenMessage(a: AccessAttributes, user: string, reason?: string): string {
  const why = because(a, user) + (reason ? `: ${reason}` : '');
  if (isPath(a)) return `forbidden: ${why}`;
  const what = qualifiedResource(a.group, a.resource);
  return a.name ? `${what} "${a.name}" is forbidden: ${why}` : `${what} is forbidden: ${why}`;
}

/** A stable key for caching a decision per person and attributes. */
export function accessKey(a: AccessAttributes): string {
  if (isPath(a)) return `path|${a.verb}|${a.path}`;
  return [
    'res',
    a.verb,
    a.group ?? '',
    a.resource,
    a.subresource ?? '',
    a.namespace ?? '',
    a.name ?? '',
  ].join('|');
}

/** The body of a SelfSubjectAccessReview for these attributes. */
export function selfSubjectAccessReview(a: AccessAttributes) {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: isPath(a)
      ? { nonResourceAttributes: { verb: a.verb, path: a.path } }
      : {
          resourceAttributes: {
            verb: a.verb,
            group: a.group ?? '',
            resource: a.resource,
            ...(a.subresource ? { subresource: a.subresource } : {}),
            ...(a.namespace ? { namespace: a.namespace } : {}),
            ...(a.name ? { name: a.name } : {}),
          },
        },
  };
}
