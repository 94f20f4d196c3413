// The RBAC authorizer over the stored Roles, ClusterRoles and bindings: ClusterRoleBindings
// first, then the namespace's RoleBindings, each in name order; the first rule that allows
// wins and is named in the reason; bindings whose role is missing make the denial's reason.
// Each user's rules are compiled once (per namespace on first use) and dropped whenever an
// RBAC object changes.
import type { UserInfo } from '../core/context.js';
import type { Attributes } from './attributes.js';
import {
  type PolicyRule,
  type RoleRef,
  type Subject,
  aggregateErrors,
  appliesTo,
  describeBinding,
  ruleAllows,
} from './rules.js';

export interface Binding {
  name: string;
  /** '' for a ClusterRoleBinding */
  namespace: string;
  roleRef: RoleRef;
  subjects?: Subject[];
}

/** what the authorizer reads: the stored objects, bindings in name order */
export interface RbacSource {
  clusterRoleBindings(): Binding[];
  roleBindings(namespace: string): Binding[];
  clusterRoleRules(name: string): PolicyRule[] | undefined;
  roleRules(namespace: string, name: string): PolicyRule[] | undefined;
}

export interface Decision {
  allowed: boolean;
  /** "RBAC: allowed by …", "RBAC: <errors>" or '' */
  reason: string;
}

interface Grant {
  rule: PolicyRule;
  binding: Binding;
  subject: Subject;
}

interface Compiled {
  grants: Grant[];
  errors: string[];
}

interface UserRules {
  cluster: Compiled;
  namespaces: Map<string, Compiled>;
}

const MAX_CACHED_USERS = 10_000;

export class RbacAuthorizer {
  private cache = new Map<string, UserRules>();

  constructor(private readonly src: RbacSource) {}

  /** forget every compiled user: an RBAC object changed */
  invalidate() {
    this.cache.clear();
  }

  private compile(user: UserInfo, bindings: Binding[]): Compiled {
    const out: Compiled = { grants: [], errors: [] };
    for (const b of bindings) {
      const subject = appliesTo(user, b.subjects, b.namespace);
      if (!subject) continue;
      const rules = this.roleRules(b);
      if (typeof rules === 'string') out.errors.push(rules);
      else for (const rule of rules) out.grants.push({ rule, binding: b, subject });
    }
    return out;
  }

  private roleRules(b: Binding): PolicyRule[] | string {
    const { kind, name } = b.roleRef;
    if (kind === 'ClusterRole')
      return this.src.clusterRoleRules(name) ?? `clusterrole.rbac.authorization.k8s.io "${name}" not found`;
    if (kind === 'Role' && b.namespace)
      return this.src.roleRules(b.namespace, name) ?? `role.rbac.authorization.k8s.io "${name}" not found`;
    return `unsupported role reference kind: "${kind}"`;
  }

  private rulesOf(user: UserInfo): UserRules {
    const key = `${user.username}\u0000${user.groups.join('\u0000')}`;
    let r = this.cache.get(key);
    if (!r) {
      if (this.cache.size >= MAX_CACHED_USERS) this.cache.clear();
      r = { cluster: this.compile(user, this.src.clusterRoleBindings()), namespaces: new Map() };
      this.cache.set(key, r);
    }
    return r;
  }

  private namespaced(user: UserInfo, r: UserRules, namespace: string): Compiled {
    let c = r.namespaces.get(namespace);
    if (!c) {
      c = this.compile(user, this.src.roleBindings(namespace));
      r.namespaces.set(namespace, c);
    }
    return c;
  }

  authorize(a: Attributes): Decision {
    const r = this.rulesOf(a.user);
    const lists = [r.cluster];
    if (a.namespace) lists.push(this.namespaced(a.user, r, a.namespace));
    for (const c of lists)
      for (const g of c.grants)
        if (ruleAllows(a, g.rule))
          return { allowed: true, reason: `RBAC: allowed by ${describeBinding(g.binding, g.subject)}` };
    const errors = lists.flatMap((c) => c.errors);
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /** every rule that applies to the user in a namespace, and the errors met on the way */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const r = this.rulesOf(user);
    const lists = [r.cluster];
    if (namespace) lists.push(this.namespaced(user, r, namespace));
    return {
      rules: lists.flatMap((c) => c.grants.map((g) => g.rule)),
      errors: lists.flatMap((c) => c.errors),
    };
  }
}
