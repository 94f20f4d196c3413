// Authentication, impersonation and authorization of every request to the embedded API
// server, in kube-apiserver's order: who the bearer token stands for (static tokens,
// ServiceAccount tokens; anonymous without one), whom they may act as (Impersonate-*), and
// whether that user may do what the URL asks (system:masters first, then RBAC).
import type { IncomingMessage } from 'node:http';
import type { RbacWriteCheck } from '../core/api.js';
import type { UserInfo } from '../core/context.js';
import { sameValue } from '../core/objects.js';
import { StatusError, errors } from '../http/errors.js';
import type { KubeObject } from '../resources/types.js';
import type { Store } from '../store/store.js';
import { type Attributes, requestAttributes } from './attributes.js';
import { ANONYMOUS, Authenticator, bearerToken } from './authenticator.js';
import { Authorizer, isMaster } from './authorizer.js';
import { FULL_AUTHORITY, escalationError } from './escalation.js';
import { forbidden } from './forbidden.js';
import { impersonatedUser, impersonationAttributes, impersonationRequests } from './impersonation.js';
import { ServiceAccountTokens } from './serviceAccountTokens.js';
import type { RbacSource } from './rbac.js';
import { RBAC_KEYS, storeSource } from './storeSource.js';
import { type PolicyRule, RBAC_GROUP, aggregateErrors } from './rules.js';
import type { TokenEntry } from './tokenFile.js';

/** what an unauthenticated client may reach (kube-apiserver lets RBAC decide; here the rest is 401) */
const anonymousPaths = new Set(['/version', '/healthz', '/livez', '/readyz']);

const rbacKeys = new Set(Object.values(RBAC_KEYS));

function hasImpersonation(req: IncomingMessage): boolean {
  const h = req.headers;
  if (
    h['impersonate-user'] !== undefined ||
    h['impersonate-group'] !== undefined ||
    h['impersonate-uid'] !== undefined
  )
    return true;
  for (const k in h) if (k.startsWith('impersonate-extra-')) return true;
  return false;
}

export class AuthServices {
  readonly serviceAccounts: ServiceAccountTokens;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  private readonly source: RbacSource;
  private readonly unsubscribe: () => void;

  constructor(store: Store, tokens: TokenEntry[]) {
    this.serviceAccounts = new ServiceAccountTokens(
      (ns, name) => store.get('/serviceaccounts', ns, name)?.obj.metadata,
      Date.now,
      (ns, name) => store.get('/pods', ns, name)?.obj.metadata,
    );
    this.authenticator = new Authenticator(tokens, this.serviceAccounts);
    this.source = storeSource(store);
    this.authorizer = new Authorizer(this.source);
    this.unsubscribe = store.onEvent((key) => {
      if (rbacKeys.has(key)) this.authorizer.rbac.invalidate();
    });
  }

  stop() {
    this.unsubscribe();
  }

  private allowed(user: UserInfo, verb: string, resource: string, name: string, namespace: string) {
    return this.authorizer.authorize({
      user,
      verb,
      resourceRequest: true,
      path: '',
      apiGroup: RBAC_GROUP,
      apiVersion: '*',
      resource,
      subresource: '',
      namespace,
      name,
    }).allowed;
  }

  /**
   * kube-apiserver's RBAC storage: a Role or ClusterRole may be written only with the verb
   * escalate or by someone who holds all its rules (an aggregationRule needs everything); a
   * binding only with the verb bind on its role or by someone who holds all the role's rules.
   * Writes that only touch finalizers or ownerReferences pass. system:masters always passes.
   */
  readonly checkRbacWrite: RbacWriteCheck = (r, obj, old, o) => {
    const user = o.user;
    if (isMaster(user)) return;
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const refuse = (message: string) => {
      throw new StatusError(
        403,
        'Forbidden',
        `${r.plural}.${RBAC_GROUP} "${name}" is forbidden: ${message}`,
        {
          name,
          group: RBAC_GROUP,
          kind: r.plural,
        },
      );
    };
    const held = () => {
      const { rules, errors: problems } = this.authorizer.rulesFor(user, ns);
      return { rules, problems: problems.length ? aggregateErrors(problems) : '' };
    };
    if (r.kind === 'Role' || r.kind === 'ClusterRole') {
      // (a create names no object: the escalate check has no name then)
      if (this.allowed(user, 'escalate', r.plural, old ? name : '', ns)) return;
      if (old && onlyGcFields(obj, old)) return;
      const h = held();
      const rules = ((obj as { rules?: PolicyRule[] | null }).rules ?? []) as PolicyRule[];
      const err = escalationError(user, h.rules, rules, h.problems);
      if (err) refuse(err);
      const aggregated = (x?: KubeObject) =>
        !!(x as { aggregationRule?: unknown } | undefined)?.aggregationRule;
      if (r.kind === 'ClusterRole' && (aggregated(obj) || aggregated(old)))
        if (escalationError(user, h.rules, FULL_AUTHORITY))
          refuse('must have cluster-admin privileges to use the aggregationRule');
      return;
    }
    if (r.kind !== 'RoleBinding' && r.kind !== 'ClusterRoleBinding') return;
    if (old && onlyGcFields(obj, old)) return;
    const ref = (obj as { roleRef?: { kind?: string; name?: string } }).roleRef ?? {};
    const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
    if (resource && this.allowed(user, 'bind', resource, ref.name ?? '', ns)) return;
    const rules = this.roleRules(ref.kind ?? '', ref.name ?? '', ns);
    // (measured: a missing role is a 404 that names the binding's resource and the role's name)
    if (rules === undefined) {
      const refName = ref.name ?? '';
      throw new StatusError(404, 'NotFound', `${r.plural}.${RBAC_GROUP} "${refName}" not found`, {
        name: refName,
        group: RBAC_GROUP,
        kind: r.plural,
      });
    }
    if (typeof rules === 'string') throw errors.badRequest(rules);
    const h = held();
    const err = escalationError(user, h.rules, rules, h.problems);
    if (err) refuse(err);
  };

  /** the referenced role's rules, undefined when it does not exist, a message for a bad kind */
  private roleRules(kind: string, name: string, ns: string): PolicyRule[] | string | undefined {
    if (kind === 'ClusterRole') return this.source.clusterRoleRules(name);
    if (kind === 'Role') return this.source.roleRules(ns, name);
    return `unsupported role reference kind: "${kind}"`;
  }

  /** 403 unless allowed */
  check(a: Attributes) {
    const d = this.authorizer.authorize(a);
    if (!d.allowed) throw forbidden(a, d.reason);
  }

  /**
   * The user a request runs as, authorized for what it asks. Throws 401, 403, or an
   * ImpersonationError (kube-apiserver's 500 for groups without a user).
   * @param path the URL's path, decoded, as received
   * @param trimmed the same without trailing slashes
   */
  admit(req: IncomingMessage, path: string, trimmed: string, query: URLSearchParams): UserInfo {
    const token = bearerToken(req.headers.authorization);
    let user: UserInfo;
    if (token === undefined) {
      if (!anonymousPaths.has(trimmed)) throw errors.unauthorized();
      user = ANONYMOUS;
    } else {
      const found = this.authenticator.authenticateToken(token);
      if (found.error !== undefined) throw errors.unauthorized();
      user = found.user;
    }
    if (hasImpersonation(req)) {
      const requests = impersonationRequests(req.headersDistinct);
      if (!isMaster(user)) for (const r of requests) this.check({ ...impersonationAttributes(r), user });
      user = impersonatedUser(requests);
    }
    if (!isMaster(user)) this.check({ ...requestAttributes(req.method ?? 'GET', path, query), user });
    return user;
  }
}

/** IsOnlyMutatingGCFields: the same object but for finalizers and ownerReferences */
function onlyGcFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (x: KubeObject) => {
    const {
      resourceVersion: _rv,
      finalizers: _f,
      ownerReferences: _o,
      managedFields: _m,
      ...meta
    } = x.metadata;
    return { ...x, metadata: meta };
  };
  return sameValue(strip(obj), strip(old));
}
