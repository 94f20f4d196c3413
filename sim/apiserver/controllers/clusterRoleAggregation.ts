// kube-controller-manager's clusterrole-aggregation controller inside the embedded API server:
// whenever any ClusterRole changes, every ClusterRole with an aggregationRule gets the rules of
// the ClusterRoles its selectors match (sim/apiserver/auth/aggregation.ts), written only when
// they differ.
import { type ClusterRoleLike, aggregatedRules, isAggregated, sameRules } from '../auth/aggregation.js';
import { RBAC_KEYS } from '../auth/storeSource.js';
import type { ApiCore } from '../core/api.js';
import { clone } from '../core/objects.js';
import { Reconciler } from './reconciler.js';

const controller = {
  dryRun: false,
  user: {
    username: 'system:serviceaccount:kube-system:clusterrole-aggregation-controller',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
  },
};

export class ClusterRoleAggregation {
  private readonly loop = new Reconciler('clusterrole-aggregation', (name) => this.sync(name));
  private readonly unsubscribe: () => void;

  constructor(private readonly core: ApiCore) {
    this.unsubscribe = core.store.onEvent((key) => {
      if (key === RBAC_KEYS.clusterRoles) this.enqueueAggregated();
    });
    this.enqueueAggregated();
  }

  stop() {
    this.unsubscribe();
    this.loop.stop();
  }

  private roles(): ClusterRoleLike[] {
    return [...this.core.store.collection(RBAC_KEYS.clusterRoles).items.values()].map(
      (s) => s.obj as ClusterRoleLike,
    );
  }

  private enqueueAggregated() {
    for (const r of this.roles()) if (isAggregated(r)) this.loop.enqueue(r.metadata.name!);
  }

  private async sync(name: string) {
    const target = this.core.store.get(RBAC_KEYS.clusterRoles, undefined, name)?.obj as
      | ClusterRoleLike
      | undefined;
    if (!target || !isAggregated(target)) return;
    const rules = aggregatedRules(target, this.roles());
    if (sameRules(rules, target.rules)) return;
    const r = this.core.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
    await this.core.writeLoop(
      r,
      undefined,
      name,
      controller,
      '',
      (current) => ({
        ...current,
        rules: clone(aggregatedRules(current as ClusterRoleLike, this.roles())),
      }),
      undefined,
    );
  }
}
