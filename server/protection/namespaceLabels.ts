// Keeps `palisade.dev/deletion-protection: enabled` on exactly the namespaces that hold a
// PodProtector, on every cell's cluster: the pod-deletion webhook's namespaceSelector matches
// it, so an outage of the webhook never touches a namespace Palisade does not protect. A loop
// on the controller runtime (the leader only), keyed `<cluster>/<namespace>`, fed by the
// protector store and by a projection of each cluster's shared namespace watch. Each write is
// a merge patch of that one label carrying the resourceVersion it was decided on (a 409 is
// looked at again). The aggregators ask `enforced()` before they write a protector's status,
// so a protector that reads as aggregated is one whose namespace the webhook already matches.
import * as k8s from '@kubernetes/client-node';
import {
  labelChange,
  PROTECTED_NAMESPACE_LABEL,
  PROTECTED_NAMESPACE_VALUE,
} from '../../lib/protection/namespaceLabel.js';
import { isConflict, isNotFound, errorText } from '../../lib/kube/errorText.js';
import { done, type Result, requeueAfter } from '../../lib/runtime/result.js';
import type { InformerRegistry, SupervisedInformer } from '../kube/informer.js';
import { component, type Logger } from '../log.js';
import { type Change, Loop } from '../runtime/loop.js';
import { fieldsKey } from '../../lib/runtime/keys.js';
import type { Term } from '../runtime/gate.js';
import type { ProtectorChange, ProtectorStore } from './protectors.js';

export type NamespaceLabelWait = 'conflict';

interface NamespaceView {
  name: string;
  resourceVersion: string;
  /** the label's value, if any */
  label: string | undefined;
}

const view = (n: k8s.V1Namespace): NamespaceView => ({
  name: n.metadata?.name ?? '',
  resourceVersion: n.metadata?.resourceVersion ?? '',
  label: n.metadata?.labels?.[PROTECTED_NAMESPACE_LABEL],
});

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

interface ClusterNamespaces {
  id: string;
  kc: k8s.KubeConfig;
  namespaces: SupervisedInformer<k8s.V1Namespace, NamespaceView>;
  /** namespaces this leader labelled that its watch has not shown labelled yet */
  labelled: Set<string>;
}

/** a namespace on one cell's cluster */
type NamespaceKey = { cluster: string; namespace: string };
const NAMESPACE_KEY = fieldsKey('cluster', 'namespace');

export class NamespaceLabels {
  readonly loop: Loop<NamespaceKey, NamespaceLabelWait>;
  private readonly clusters = new Map<string, ClusterNamespaces>();
  private readonly log: Logger;
  private term: Term | undefined;

  constructor(
    private readonly o: {
      /** every cell's cluster (once each) and its shared watches */
      clusters: { id: string; kc: k8s.KubeConfig; registry: InformerRegistry }[];
      store: ProtectorStore;
      logger?: Logger;
    },
  ) {
    this.log = component('namespaceLabels', {}, o.logger);
    for (const c of o.clusters) {
      if (this.clusters.has(c.id)) continue;
      const core = c.kc.makeApiClient(k8s.CoreV1Api);
      const namespaces = c.registry.informer({
        kind: 'namespaces',
        path: '/api/v1/namespaces',
        list: (p) => core.listNamespace(p),
        project: view,
      });
      const entry: ClusterNamespaces = { id: c.id, kc: c.kc, namespaces, labelled: new Set() };
      // the watch has caught up with this leader's own write (or someone changed it since)
      const seen = (n: NamespaceView) => entry.labelled.delete(n.name);
      namespaces.on({ add: seen, update: seen });
      this.clusters.set(c.id, entry);
    }
    const clusters = [...this.clusters.values()];
    this.loop = new Loop<NamespaceKey, NamespaceLabelWait>({
      name: 'namespace-labels',
      key: NAMESPACE_KEY,
      for: clusters.map((c) => ({
        source: c.namespaces,
        keys: (n: NamespaceView, change: Change) =>
          change !== 'delete' && { cluster: c.id, namespace: n.name },
      })),
      // a protector made or gone in a namespace: label it, or not, on every cell's cluster
      watches: [
        {
          source: o.store.changes,
          keys: ({ key }: ProtectorChange) =>
            clusters.map((c) => ({ cluster: c.id, namespace: key.slice(0, key.indexOf('/')) })),
        },
      ],
      begin: (term, loop) => this.begin(term, loop),
      reconcile: (key) => this.reconcile(key),
      end: () => (this.term = undefined),
      concurrency: 4,
      backoff: { baseMs: 500, maxMs: 30_000 },
      logger: o.logger,
    });
  }

  /** Start watching namespaces (every replica: the aggregators ask enforced() on the leader). */
  async start() {
    for (const c of this.clusters.values()) c.namespaces.start();
    await Promise.all([...this.clusters.values()].map((c) => c.namespaces.synced()));
  }

  async stop() {
    this.loop.controller.halt();
    await Promise.all([...this.clusters.values()].map((c) => c.namespaces.stop()));
  }

  /**
   * May a protector of this namespace be counted as enforced on this cluster: its namespace is
   * labelled (or does not exist there, so there is nothing to delete).
   */
  enforced(clusterId: string, namespace: string): boolean {
    const c = this.clusters.get(clusterId);
    if (!c) return true;
    const n = c.namespaces.get(namespace);
    return !n || n.label === PROTECTED_NAMESPACE_VALUE || c.labelled.has(namespace);
  }

  private holdsProtector(namespace: string) {
    return this.o.store.all().some((e) => e.protector.metadata.namespace === namespace);
  }

  private async begin(term: Term, loop: Loop<NamespaceKey, NamespaceLabelWait>) {
    this.term = term;
    await Promise.all([
      this.o.store.whenSynced(),
      ...[...this.clusters.values()].map((c) => c.namespaces.synced()),
    ]);
    const withProtectors = new Set(this.o.store.all().map((e) => e.protector.metadata.namespace));
    for (const c of this.clusters.values()) {
      for (const n of c.namespaces.values())
        if (n.label !== undefined || withProtectors.has(n.name))
          loop.enqueue({ cluster: c.id, namespace: n.name });
    }
  }

  private async reconcile({ cluster, namespace }: NamespaceKey): Promise<Result<NamespaceLabelWait>> {
    const term = this.term;
    if (!term) throw new Error('no term: not leading');
    const c = this.clusters.get(cluster);
    const n = c?.namespaces.get(namespace);
    if (!c || !n) return done;
    const holds = this.holdsProtector(namespace);
    const change = labelChange(holds, c.labelled.has(namespace) ? PROTECTED_NAMESPACE_VALUE : n.label);
    if (change === 'none') return done;
    const core = term.kc(c.kc).makeApiClient(k8s.CoreV1Api);
    try {
      await core.patchNamespace(
        {
          name: namespace,
          body: {
            metadata: {
              resourceVersion: n.resourceVersion,
              labels: { [PROTECTED_NAMESPACE_LABEL]: change === 'add' ? PROTECTED_NAMESPACE_VALUE : null },
            },
          },
        },
        mergePatch,
      );
    } catch (e) {
      if (isConflict(e)) return requeueAfter(100, 'conflict');
      if (isNotFound(e)) return done;
      throw new Error(
        `namespace ${namespace} on ${c.id}: label not ${change === 'add' ? 'added' : 'removed'}: ${errorText(e)}`,
      );
    }
    if (change === 'add') c.labelled.add(namespace);
    else c.labelled.delete(namespace);
    this.log.info(
      { cluster: c.id, namespace, label: PROTECTED_NAMESPACE_LABEL, change },
      change === 'add'
        ? 'namespace labelled: the pod-deletion webhook reviews it (it holds a PodProtector)'
        : 'namespace label removed: it holds no PodProtector',
    );
    return done;
  }
}
