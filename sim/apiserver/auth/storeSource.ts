// The RBAC authorizer's view of the embedded store: bindings in name order, role rules by name.
import type { Store } from '../store/store.js';
import type { Binding, RbacSource } from './rbac.js';
import type { PolicyRule } from './rules.js';

export const RBAC_KEYS = {
  roles: 'rbac.authorization.k8s.io/roles',
  clusterRoles: 'rbac.authorization.k8s.io/clusterroles',
  roleBindings: 'rbac.authorization.k8s.io/rolebindings',
  clusterRoleBindings: 'rbac.authorization.k8s.io/clusterrolebindings',
};

type Obj = Record<string, any>;

function binding(o: Obj): Binding {
  return {
    name: o.metadata.name,
    namespace: o.metadata.namespace ?? '',
    roleRef: o.roleRef,
    subjects: o.subjects,
  };
}

export function storeSource(store: Store): RbacSource {
  const ordered = (key: string, prefix = '') => {
    const c = store.collection(key);
    const out: Obj[] = [];
    for (const k of c.keys()) if (!prefix || k.startsWith(prefix)) out.push(c.items.get(k)!.obj);
    return out;
  };
  return {
    clusterRoleBindings: () => ordered(RBAC_KEYS.clusterRoleBindings).map(binding),
    roleBindings: (ns) => ordered(RBAC_KEYS.roleBindings, `${ns}/`).map(binding),
    clusterRoleRules: (name) =>
      (store.get(RBAC_KEYS.clusterRoles, undefined, name)?.obj as Obj | undefined)?.rules ??
      (store.get(RBAC_KEYS.clusterRoles, undefined, name) ? ([] as PolicyRule[]) : undefined),
    roleRules: (ns, name) =>
      (store.get(RBAC_KEYS.roles, ns, name)?.obj as Obj | undefined)?.rules ??
      (store.get(RBAC_KEYS.roles, ns, name) ? ([] as PolicyRule[]) : undefined),
  };
}
