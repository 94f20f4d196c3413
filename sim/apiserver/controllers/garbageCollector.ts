// Owner-reference garbage collection, standing in for kube-controller-manager's
// garbage collector: background deletion of dependents once their owner is gone,
// foreground deletion (owner waits, via the foregroundDeletion finalizer, until its
// blocking dependents are gone) and orphaning (dependents lose the owner reference).
import type { ApiCore } from '../core/api.js';
import type { WriteOptions } from '../core/context.js';
import { FOREGROUND, ORPHAN } from '../core/deletion.js';
import { deleteOne } from '../core/remove.js';
import type { KubeObject } from '../resources/types.js';
import type { StoreEvent } from '../store/store.js';
import { Reconciler } from './reconciler.js';

interface Ref {
  storageKey: string;
  namespace?: string;
  name: string;
}

const user: WriteOptions = {
  dryRun: false,
  user: {
    username: 'system:serviceaccount:kube-system:generic-garbage-collector',
    groups: ['system:serviceaccounts', 'system:authenticated'],
  },
};

export class GarbageCollector {
  private readonly byUid = new Map<string, Ref>();
  private readonly dependents = new Map<string, Set<string>>(); // owner uid -> dependent uids
  private readonly queue = new Reconciler('garbage-collector', (uid) => this.sync(uid));
  private readonly unsubscribe: () => void;

  constructor(private readonly core: ApiCore) {
    this.unsubscribe = core.store.onEvent((key, e) => this.observe(key, e));
  }

  stop() {
    this.unsubscribe();
    this.queue.stop();
  }

  private observe(storageKey: string, e: StoreEvent) {
    const obj = e.current.obj;
    const uid = obj.metadata.uid;
    if (!uid) return;
    for (const o of e.previous?.obj.metadata.ownerReferences ?? []) this.dependents.get(o.uid)?.delete(uid);
    if (e.type === 'DELETED') {
      this.byUid.delete(uid);
      this.queue.enqueue(`gone:${uid}`);
      // an owner in foreground deletion may be waiting for this dependent
      for (const o of obj.metadata.ownerReferences ?? []) this.queue.enqueue(`owner:${o.uid}`);
      return;
    }
    this.byUid.set(uid, { storageKey, namespace: obj.metadata.namespace, name: obj.metadata.name! });
    for (const o of obj.metadata.ownerReferences ?? []) {
      let set = this.dependents.get(o.uid);
      if (!set) this.dependents.set(o.uid, (set = new Set()));
      set.add(uid);
    }
    const fin = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && (fin.includes(FOREGROUND) || fin.includes(ORPHAN)))
      this.queue.enqueue(`owner:${uid}`);
  }

  private lookup(uid: string): { ref: Ref; obj: KubeObject } | undefined {
    const ref = this.byUid.get(uid);
    if (!ref) return undefined;
    const s = this.core.store.get(ref.storageKey, ref.namespace, ref.name);
    return s && s.obj.metadata.uid === uid ? { ref, obj: s.obj } : undefined;
  }

  private async sync(key: string) {
    const [kind, uid] = key.split(':', 2);
    if (kind === 'gone') return this.collectOrphans(uid);
    const owner = this.lookup(uid);
    if (!owner?.obj.metadata.deletionTimestamp) return;
    const fin = owner.obj.metadata.finalizers ?? [];
    if (fin.includes(ORPHAN)) return this.orphan(uid, owner);
    if (fin.includes(FOREGROUND)) return this.foreground(uid, owner);
  }

  /** The owner is gone: delete dependents that have no other living owner. */
  private async collectOrphans(ownerUid: string) {
    for (const depUid of [...(this.dependents.get(ownerUid) ?? [])]) {
      const dep = this.lookup(depUid);
      if (!dep) continue;
      const others = (dep.obj.metadata.ownerReferences ?? []).filter(
        (o) => o.uid !== ownerUid && this.lookup(o.uid),
      );
      if (others.length) await this.dropOwnerRef(dep, ownerUid);
      else if (!dep.obj.metadata.deletionTimestamp) await this.deleteDependent(dep, 'Background');
    }
    this.dependents.delete(ownerUid);
  }

  private async foreground(ownerUid: string, owner: { ref: Ref; obj: KubeObject }) {
    let blocking = 0;
    for (const depUid of [...(this.dependents.get(ownerUid) ?? [])]) {
      const dep = this.lookup(depUid);
      if (!dep) continue;
      const ref = dep.obj.metadata.ownerReferences?.find((o) => o.uid === ownerUid);
      if (ref?.blockOwnerDeletion) blocking++;
      if (!dep.obj.metadata.deletionTimestamp) await this.deleteDependent(dep, 'Foreground');
    }
    if (blocking === 0) await this.removeFinalizer(owner, FOREGROUND);
  }

  private async orphan(ownerUid: string, owner: { ref: Ref; obj: KubeObject }) {
    for (const depUid of [...(this.dependents.get(ownerUid) ?? [])]) {
      const dep = this.lookup(depUid);
      if (dep) await this.dropOwnerRef(dep, ownerUid);
    }
    await this.removeFinalizer(owner, ORPHAN);
  }

  private resource(ref: Ref) {
    const r = this.core.registry.byStorageKey(ref.storageKey);
    if (!r) throw new Error(`no resource serves ${ref.storageKey}`);
    return r;
  }

  private async deleteDependent(dep: { ref: Ref; obj: KubeObject }, policy: 'Background' | 'Foreground') {
    await deleteOne(
      this.core,
      this.resource(dep.ref),
      dep.ref.namespace,
      dep.ref.name,
      { propagationPolicy: policy, preconditions: { uid: dep.obj.metadata.uid } },
      user,
    );
  }

  private async dropOwnerRef(dep: { ref: Ref; obj: KubeObject }, ownerUid: string) {
    await this.core.writeLoop(
      this.resource(dep.ref),
      dep.ref.namespace,
      dep.ref.name,
      user,
      '',
      (cur) => {
        const refs = (cur.metadata.ownerReferences ?? []).filter((o) => o.uid !== ownerUid);
        if (refs.length) cur.metadata.ownerReferences = refs;
        else delete cur.metadata.ownerReferences;
        return cur;
      },
      undefined,
    );
  }

  private async removeFinalizer(owner: { ref: Ref; obj: KubeObject }, finalizer: string) {
    await this.core.writeLoop(
      this.resource(owner.ref),
      owner.ref.namespace,
      owner.ref.name,
      user,
      '',
      (cur) => {
        const rest = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
        if (rest.length) cur.metadata.finalizers = rest;
        else delete cur.metadata.finalizers;
        return cur;
      },
      undefined,
    );
  }
}
