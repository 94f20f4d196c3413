// Emptying loops for objects that own a whole space: a terminating Namespace deletes
// everything in it and goes once empty (the namespace controller's job); a deleted
// CRD deletes its custom resources, then drops its cleanup finalizer.
import type { ApiCore } from '../core/api.js';
import type { WriteOptions } from '../core/context.js';
import { CRD_CLEANUP, deleteOne } from '../core/remove.js';
import type { ResourceInfo } from '../resources/types.js';
import {
  type NamespaceCondition,
  type Remaining,
  mergeConditions,
  namespaceConditions,
  sameConditions,
} from './namespaceConditions.js';
import { Reconciler } from './reconciler.js';
import { isNotFound } from '../../../lib/kube/errorText.js';

const user = (sa: string): WriteOptions => ({
  dryRun: false,
  user: {
    username: `system:serviceaccount:kube-system:${sa}`,
    groups: ['system:serviceaccounts', 'system:authenticated'],
  },
});

async function deleteAll(
  core: ApiCore,
  r: ResourceInfo,
  ns: string | undefined,
  o: WriteOptions,
): Promise<number> {
  const { items } = core.list(r, ns, {});
  for (const s of items) {
    if (s.obj.metadata.deletionTimestamp) continue;
    try {
      await deleteOne(core, r, s.obj.metadata.namespace, s.obj.metadata.name!, {}, o);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  return items.length;
}

export class CleanupLoops {
  private readonly namespaces = new Reconciler('namespace-controller', (ns) => this.syncNamespace(ns));
  private readonly crds = new Reconciler('crd-cleanup', (name) => this.syncCrd(name));
  private readonly unsubscribe: () => void;

  private readonly timers = new Set<NodeJS.Timeout>();

  /** namespaceDelayMs: like the real namespace controller, start emptying a little after the delete */
  constructor(
    private readonly core: ApiCore,
    private readonly namespaceDelayMs = 500,
  ) {
    this.unsubscribe = core.store.onEvent((key, e) => {
      const m = e.current.obj.metadata;
      if (key === '/namespaces' && m.deletionTimestamp && e.type !== 'DELETED')
        this.namespaceDeleted(m.name!, !e.previous?.obj.metadata.deletionTimestamp);
      else if (
        key === 'apiextensions.k8s.io/customresourcedefinitions' &&
        m.deletionTimestamp &&
        e.type !== 'DELETED'
      )
        this.crds.enqueue(m.name!);
      else if (e.type === 'DELETED' && m.namespace && this.terminating(m.namespace))
        this.namespaces.enqueue(m.namespace);
      else if (e.type === 'DELETED') this.requeueCrdFor(key);
    });
  }

  private namespaceDeleted(ns: string, justNow: boolean) {
    if (!justNow) return this.namespaces.enqueue(ns);
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.namespaces.enqueue(ns);
    }, this.namespaceDelayMs);
    this.timers.add(t);
  }

  stop() {
    for (const t of this.timers) clearTimeout(t);
    this.unsubscribe();
    this.namespaces.stop();
    this.crds.stop();
  }

  private terminating(ns: string): boolean {
    return !!this.core.store.get('/namespaces', undefined, ns)?.obj.metadata.deletionTimestamp;
  }

  private requeueCrdFor(storageKey: string) {
    const r = this.core.registry.byStorageKey(storageKey);
    if (r?.custom) {
      const name = `${r.plural}.${r.group}`;
      if (
        this.core.store.get('apiextensions.k8s.io/customresourcedefinitions', undefined, name)?.obj.metadata
          .deletionTimestamp
      )
        this.crds.enqueue(name);
    }
  }

  private async syncNamespace(ns: string) {
    if (!this.terminating(ns)) return;
    const o = user('namespace-controller');
    let remaining = 0;
    const seen = new Set<string>();
    for (const r of this.core.registry.all()) {
      const key = this.core.key(r);
      if (!r.namespaced || seen.has(key)) continue;
      seen.add(key);
      remaining += await deleteAll(this.core, r, ns, o);
    }
    if (remaining === 0) return void this.core.store.remove('/namespaces', undefined, ns);
    await this.reportRemaining(ns, o);
  }

  /** What is left after the pass (finalizers, graceful pods), in the namespace's conditions. */
  private async reportRemaining(ns: string, o: WriteOptions) {
    const left: Remaining[] = [];
    const seen = new Set<string>();
    for (const r of this.core.registry.all()) {
      const key = this.core.key(r);
      if (!r.namespaced || seen.has(key)) continue;
      seen.add(key);
      for (const s of this.core.list(r, ns, {}).items)
        left.push({ groupResource: `${r.plural}.${r.group}`, finalizers: s.obj.metadata.finalizers ?? [] });
    }
    const next = namespaceConditions(left);
    const namespaces = this.core.registry.lookup('', 'v1', 'namespaces')!;
    const current = this.core.store.get('/namespaces', undefined, ns)?.obj as
      | { status?: { conditions?: NamespaceCondition[] } }
      | undefined;
    if (!current || sameConditions(current.status?.conditions, next)) return;
    const now = `${new Date().toISOString().slice(0, 19)}Z`;
    await this.core
      .writeLoop(
        namespaces,
        undefined,
        ns,
        o,
        'status',
        (cur: any) => {
          cur.status = { ...cur.status, conditions: mergeConditions(cur.status?.conditions, next, now) };
          return cur;
        },
        undefined,
      )
      .catch((e) => {
        // gone meanwhile: nothing to report
        if (!isNotFound(e)) throw e;
      });
  }

  private async syncCrd(name: string) {
    const crd = this.core.store.get('apiextensions.k8s.io/customresourcedefinitions', undefined, name)
      ?.obj as any;
    if (!crd?.metadata.deletionTimestamp) return;
    const r = this.core.registry.lookup(
      crd.spec.group,
      this.core.crdStorageVersion(crd),
      crd.spec.names.plural,
    );
    const remaining = r ? await deleteAll(this.core, r, undefined, user('apiextensions-controller')) : 0;
    if (remaining > 0) return;
    const crds = this.core.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    await this.core.writeLoop(
      crds,
      undefined,
      name,
      user('apiextensions-controller'),
      '',
      (cur) => {
        const rest = (cur.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP);
        if (rest.length) cur.metadata.finalizers = rest;
        else delete cur.metadata.finalizers;
        return cur;
      },
      undefined,
    );
  }
}
