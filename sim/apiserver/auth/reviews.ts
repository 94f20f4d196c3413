// The create-only review resources of authentication.k8s.io/v1 and authorization.k8s.io/v1
// (TokenReview, SelfSubjectReview, SubjectAccessReview, LocalSubjectAccessReview,
// SelfSubjectAccessReview, SelfSubjectRulesReview) and TokenRequest (serviceaccounts/token),
// answering in the shapes kube-apiserver v1.34 answers with. Nothing is stored.
import { StatusError, type StatusCause, errors } from '../http/errors.js';
import { nowRfc3339 } from '../core/objects.js';
import type { UserInfo } from '../core/context.js';
import type { RequestAttributes } from './attributes.js';
import type { AuthServices } from './index.js';
import type { PolicyRule } from './rules.js';
import { API_AUDIENCE, type BoundObjects } from './serviceAccountTokens.js';
import { aggregateErrors } from './rules.js';

type Obj = Record<string, any>;

export const REVIEW_GROUPS = new Set(['authentication.k8s.io', 'authorization.k8s.io']);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** the 422 of a review, whose kind kube-apiserver leaves empty (".group \"\" is invalid: …") */
function invalidReview(group: string, causes: StatusCause[]): StatusError {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return new StatusError(422, 'Invalid', `.${group} "" is invalid: ${joined}`, { group, causes });
}

function userInfoOf(u: UserInfo): Obj {
  const out: Obj = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

export function selfSubjectReview(user: UserInfo) {
  return {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: nowRfc3339() },
    status: { userInfo: userInfoOf(user) },
  };
}

export function tokenReview(body: Obj, auth: AuthServices) {
  const spec: Obj = isObj(body.spec) ? body.spec : {};
  const token = str(spec.token);
  if (!token) throw errors.badRequest('token is required for TokenReview in authentication');
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.map(String) : [];
  const echo: Obj = { token };
  if (audiences.length) echo.audiences = audiences;
  const found = auth.authenticator.authenticateToken(token, audiences);
  const status: Obj =
    found.error === undefined
      ? { authenticated: true, user: userInfoOf(found.user), audiences: found.audiences }
      : { user: {}, error: found.error };
  return { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: {}, spec: echo, status };
}

const resourceKeys = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;

/** the spec as the typed object comes back: known fields, empty ones left out */
function echoSpec(spec: Obj, self: boolean): Obj {
  const out: Obj = {};
  if (isObj(spec.resourceAttributes)) {
    const ra: Obj = {};
    for (const k of resourceKeys) if (str(spec.resourceAttributes[k])) ra[k] = spec.resourceAttributes[k];
    out.resourceAttributes = ra;
  }
  if (isObj(spec.nonResourceAttributes)) {
    const na: Obj = {};
    for (const k of ['path', 'verb'])
      if (str(spec.nonResourceAttributes[k])) na[k] = spec.nonResourceAttributes[k];
    out.nonResourceAttributes = na;
  }
  if (!self) {
    if (str(spec.user)) out.user = spec.user;
    if (Array.isArray(spec.groups) && spec.groups.length) out.groups = spec.groups;
    if (isObj(spec.extra) && Object.keys(spec.extra).length) out.extra = spec.extra;
    if (str(spec.uid)) out.uid = spec.uid;
  }
  return out;
}

function attributesOf(spec: Obj): RequestAttributes {
  if (isObj(spec.resourceAttributes)) {
    const ra = spec.resourceAttributes;
    return {
      verb: str(ra.verb),
      resourceRequest: true,
      path: '',
      apiGroup: str(ra.group),
      apiVersion: str(ra.version),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      namespace: str(ra.namespace),
      name: str(ra.name),
    };
  }
  const na: Obj = spec.nonResourceAttributes;
  return {
    verb: str(na.verb),
    resourceRequest: false,
    path: str(na.path),
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}

export type AccessReviewKind = 'SelfSubjectAccessReview' | 'SubjectAccessReview' | 'LocalSubjectAccessReview';

export function accessReview(
  kind: AccessReviewKind,
  body: Obj,
  requester: UserInfo,
  namespace: string | undefined,
  auth: AuthServices,
) {
  const spec: Obj = isObj(body.spec) ? body.spec : {};
  const causes: StatusCause[] = [];
  const hasRes = isObj(spec.resourceAttributes);
  const hasNonRes = isObj(spec.nonResourceAttributes);
  if (hasRes && hasNonRes)
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "object": cannot be specified in combination with resourceAttributes',
      field: 'spec.nonResourceAttributes',
    });
  if (!hasRes && !hasNonRes)
    causes.push({
      reason: 'FieldValueInvalid',
      message:
        'Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      field: 'spec.resourceAttributes',
    });
  const self = kind === 'SelfSubjectAccessReview';
  if (!self && !str(spec.user) && !(Array.isArray(spec.groups) && spec.groups.length))
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "": at least one of user or group must be specified',
      field: 'spec.user',
    });
  if (kind === 'LocalSubjectAccessReview') {
    if (hasRes && str(spec.resourceAttributes.namespace) !== namespace)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${str(spec.resourceAttributes.namespace)}": must match metadata.namespace`,
        field: 'spec.resourceAttributes.namespace',
      });
    if (hasNonRes)
      causes.push({
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": disallowed on this kind of request',
        field: 'spec.nonResourceAttributes',
      });
  }
  if (causes.length) throw invalidReview('authorization.k8s.io', causes);
  const user: UserInfo = self
    ? requester
    : {
        username: str(spec.user),
        groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [],
        ...(str(spec.uid) ? { uid: spec.uid } : {}),
        ...(isObj(spec.extra) ? { extra: spec.extra } : {}),
      };
  const d = auth.authorizer.authorize({ ...attributesOf(spec), user });
  const status: Obj = { allowed: d.allowed };
  if (d.reason) status.reason = d.reason;
  return {
    kind,
    apiVersion: 'authorization.k8s.io/v1',
    metadata: namespace && kind === 'LocalSubjectAccessReview' ? { namespace } : {},
    spec: echoSpec(spec, self),
    status,
  };
}

export function rulesReview(body: Obj, user: UserInfo, auth: AuthServices) {
  const namespace = str(isObj(body.spec) ? body.spec.namespace : '');
  if (!namespace) throw errors.badRequest('no namespace on request');
  const { rules, errors: problems } = auth.authorizer.rulesFor(user, namespace);
  const resourceRules: Obj[] = [];
  const nonResourceRules: Obj[] = [];
  for (const r of rules as PolicyRule[]) {
    if (r.resources?.length) {
      const rr: Obj = { verbs: r.verbs ?? [] };
      if (r.apiGroups?.length) rr.apiGroups = r.apiGroups;
      rr.resources = r.resources;
      if (r.resourceNames?.length) rr.resourceNames = r.resourceNames;
      resourceRules.push(rr);
    }
    if (r.nonResourceURLs?.length)
      nonResourceRules.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs });
  }
  const status: Obj = { resourceRules, nonResourceRules, incomplete: false };
  if (problems.length) status.evaluationError = aggregateErrors(problems);
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {},
    spec: {},
    status,
  };
}

const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;

/** What a TokenRequest may be bound to, read from the store (throws kube-apiserver's 404). */
export interface BindingLookup {
  pod(namespace: string, name: string): Obj;
  node(name: string): Obj;
}

/**
 * spec.boundObjectRef, as kube-apiserver's TokenREST binds it: a Pod of the same
 * ServiceAccount (with the node it is scheduled to); other kinds are not emulated.
 */
function bindingOf(spec: Obj, sa: Obj, lookup: BindingLookup | undefined): BoundObjects {
  const ref: Obj | undefined = isObj(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (!ref) return {};
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  if (group !== '' || str(ref.kind) !== 'Pod' || !lookup)
    throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${str(ref.kind)}`);
  const pod = lookup.pod(sa.metadata.namespace, str(ref.name));
  const account = pod.spec?.serviceAccountName || 'default';
  if (account !== sa.metadata.name)
    throw errors.badRequest(
      `cannot bind token for serviceaccount "${sa.metadata.name}" to pod running with different serviceaccount name.`,
    );
  if (str(ref.uid) && str(ref.uid) !== pod.metadata.uid)
    throw new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on Pod "${str(ref.name)}": the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
      { kind: 'Pod', name: str(ref.name) },
    );
  const bound: BoundObjects = { pod: { name: pod.metadata.name, uid: pod.metadata.uid } };
  // ServiceAccountTokenPodNodeInfo (on by default): the node the pod is scheduled to
  const nodeName = str(pod.spec?.nodeName);
  if (nodeName) {
    const node = lookup.node(nodeName);
    bound.node = { name: node.metadata.name, uid: node.metadata.uid };
  }
  return bound;
}

/** POST serviceaccounts/<name>/token */
export function tokenRequest(body: Obj, sa: Obj, auth: AuthServices, lookup?: BindingLookup) {
  const spec: Obj = isObj(body?.spec) ? body.spec : {};
  const seconds = spec.expirationSeconds ?? 3600;
  const causes: StatusCause[] = [];
  if (typeof seconds !== 'number' || !Number.isInteger(seconds))
    throw errors.badRequest('TokenRequest: spec.expirationSeconds must be an integer');
  if (seconds < MIN_EXPIRATION)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${seconds}: may not specify a duration less than 10 minutes`,
      field: 'spec.expirationSeconds',
    });
  if (seconds > MAX_EXPIRATION)
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not specify a duration larger than 2^32 seconds`,
      field: 'spec.expirationSeconds',
    });
  if (causes.length) {
    const list = causes.map((c) => `${c.field}: ${c.message}`);
    throw new StatusError(
      422,
      'Invalid',
      `TokenRequest.authentication.k8s.io "" is invalid: ${list.length === 1 ? list[0] : `[${list.join(', ')}]`}`,
      { group: 'authentication.k8s.io', kind: 'TokenRequest', causes },
    );
  }
  const audiences: string[] =
    Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences : [API_AUDIENCE];
  const m = sa.metadata;
  const issued = auth.serviceAccounts.issue(
    { namespace: m.namespace, name: m.name, uid: m.uid },
    seconds,
    audiences,
    bindingOf(spec, sa, lookup),
  );
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, creationTimestamp: nowRfc3339() },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token: issued.token, expirationTimestamp: `${issued.expiresAt.toISOString().slice(0, 19)}Z` },
  };
}
