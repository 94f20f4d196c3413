// The `authorizer` CEL variable of kube-apiserver's admission environment (the Authz
// library of k8s.io/apiserver/pkg/cel/library): authorization checks a condition may ask
// of the cluster's own authorizer, as the requesting user or as a ServiceAccount;
// `authorizer.requestResource` is the request's own resource. The checks are synchronous,
// like the embedded server's RBAC.
import type { Environment } from '@marcbachmann/cel-js';
import type { Attributes } from '../../auth/attributes.js';
import type { Decision } from '../../auth/rbac.js';
import type { UserInfo } from '../../core/context.js';

export type Authorize = (a: Attributes) => Decision;

const T = 'kubernetes.authorization.';

/** cel-go's cost of one authorization check: "set to allow for only two … per expression" */
const CHECK_COST = 350_000;
/** PerCallLimit: the most one expression may cost */
const PER_CALL_LIMIT = 1_000_000;

/**
 * The cost that matters in a condition: its authorization checks. Other operations cost
 * cel-go a few units each and are not counted (KNOWN_DIFFERENCES.md).
 */
export class CostMeter {
  /** the current expression's */
  expression = 0;
  /** every expression's so far, for one webhook */
  total = 0;

  charge(cost: number) {
    this.expression += cost;
    if (this.expression > PER_CALL_LIMIT) throw new Error('operation cancelled: actual cost limit exceeded');
  }
}

export class AuthorizerVal {
  /** set on the variable itself (the qualified name authorizer.requestResource) */
  requestResource?: ResourceCheckVal;

  constructor(
    readonly user: UserInfo,
    readonly authorize: Authorize | undefined,
    readonly meter: CostMeter,
  ) {}
}

export class PathCheckVal {
  constructor(
    readonly authz: AuthorizerVal,
    readonly path: string,
  ) {}
}

export class GroupCheckVal {
  constructor(
    readonly authz: AuthorizerVal,
    readonly group: string,
  ) {}
}

export class ResourceCheckVal {
  subresource = '';
  namespace = '';
  name = '';

  constructor(
    readonly group: GroupCheckVal,
    readonly resource: string,
  ) {}

  with(change: Partial<Pick<ResourceCheckVal, 'subresource' | 'namespace' | 'name'>>): ResourceCheckVal {
    return Object.assign(Object.assign(new ResourceCheckVal(this.group, this.resource), this), change);
  }
}

export class DecisionVal {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
    readonly error = '',
  ) {}
}

function decide(authz: AuthorizerVal, a: Omit<Attributes, 'user'>): DecisionVal {
  authz.meter.charge(CHECK_COST);
  if (!authz.authorize) return new DecisionVal(false, '', 'no authorizer');
  const d = authz.authorize({ ...a, user: authz.user });
  return new DecisionVal(d.allowed, d.reason);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** ServiceAccountInfo.UserInfo(): no system:authenticated */
function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

type Handler = (...args: any[]) => unknown;
const method = (receiver: string, name: string, params: string[], returns: string, handler: Handler) => ({
  name,
  receiverType: `${T}${receiver}`,
  returnType: returns.includes('.') || ['bool', 'string'].includes(returns) ? returns : `${T}${returns}`,
  params: params.map((type, i) => ({ name: `p${i}`, type })),
  handler,
});

/** Declares the library's types and functions and the `authorizer` variable. */
export function authzLibrary(env: Environment): Environment {
  env
    .registerType(`${T}Authorizer`, {
      ctor: AuthorizerVal,
      fields: { requestResource: `${T}ResourceCheck` },
    })
    .registerType(`${T}PathCheck`, { ctor: PathCheckVal, fields: {} })
    .registerType(`${T}GroupCheck`, { ctor: GroupCheckVal, fields: {} })
    .registerType(`${T}ResourceCheck`, { ctor: ResourceCheckVal, fields: {} })
    .registerType(`${T}Decision`, { ctor: DecisionVal, fields: {} });
  const methods = [
    method('Authorizer', 'path', ['string'], 'PathCheck', (a: AuthorizerVal, path: string) => {
      if (!path) throw new Error('path must not be empty');
      return new PathCheckVal(a, path);
    }),
    method(
      'Authorizer',
      'group',
      ['string'],
      'GroupCheck',
      (a: AuthorizerVal, g: string) => new GroupCheckVal(a, g),
    ),
    method(
      'Authorizer',
      'serviceAccount',
      ['string', 'string'],
      'Authorizer',
      (a: AuthorizerVal, namespace: string, name: string) => {
        if (!DNS_SUBDOMAIN.test(name) || name.length > 253) throw new Error('Invalid service account name');
        if (!DNS_LABEL.test(namespace) || namespace.length > 63)
          throw new Error('Invalid service account namespace');
        return new AuthorizerVal(serviceAccountUser(namespace, name), a.authorize, a.meter);
      },
    ),
    method('GroupCheck', 'resource', ['string'], 'ResourceCheck', (g: GroupCheckVal, r: string) => {
      if (!r.trim()) throw new Error('resource must not be empty');
      return new ResourceCheckVal(g, r);
    }),
    ...(['subresource', 'namespace', 'name'] as const).map((field) =>
      method('ResourceCheck', field, ['string'], 'ResourceCheck', (r: ResourceCheckVal, v: string) =>
        r.with({ [field]: v }),
      ),
    ),
    // authorization with selectors: RBAC ignores them, on kube-apiserver as here
    ...['fieldSelector', 'labelSelector'].map((field) =>
      method('ResourceCheck', field, ['string'], 'ResourceCheck', (r: ResourceCheckVal) => r),
    ),
    method('ResourceCheck', 'check', ['string'], 'Decision', (r: ResourceCheckVal, verb: string) =>
      decide(r.group.authz, {
        verb,
        resourceRequest: true,
        path: '',
        apiGroup: r.group.group,
        apiVersion: '*',
        resource: r.resource,
        subresource: r.subresource,
        namespace: r.namespace,
        name: r.name,
      }),
    ),
    method('PathCheck', 'check', ['string'], 'Decision', (p: PathCheckVal, verb: string) =>
      decide(p.authz, {
        verb,
        resourceRequest: false,
        path: p.path,
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        namespace: '',
        name: '',
      }),
    ),
    method('Decision', 'allowed', [], 'bool', (d: DecisionVal) => d.allowed),
    method('Decision', 'reason', [], 'string', (d: DecisionVal) => d.reason),
    method('Decision', 'errored', [], 'bool', (d: DecisionVal) => d.error !== ''),
    method('Decision', 'error', [], 'string', (d: DecisionVal) => d.error),
  ];
  for (const m of methods) env.registerFunction(m);
  return env.registerVariable('authorizer', `${T}Authorizer`);
}

/** The variable for one request: its user, and its resource as authorizer.requestResource. */
export function authorizerFor(
  user: UserInfo,
  authorize: Authorize | undefined,
  request: { group: string; resource: string; subresource: string; namespace?: string; name?: string },
): AuthorizerVal {
  const authz = new AuthorizerVal(user, authorize, new CostMeter());
  authz.requestResource = new ResourceCheckVal(
    new GroupCheckVal(authz, request.group),
    request.resource,
  ).with({
    subresource: request.subresource,
    namespace: request.namespace ?? '',
    name: request.name ?? '',
  });
  return authz;
}
