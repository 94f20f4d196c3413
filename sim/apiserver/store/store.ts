// The in-memory storage: one global, monotonically increasing resourceVersion shared
// by every kind (as etcd's revision is), collections per group+plural, and
// compare-and-swap on resourceVersion. All methods are synchronous, so each write is
// atomic with respect to every other request.
import { dropEmptyMeta } from '../core/objects.js';
import { dropEmptyStatus } from '../core/omitEmpty.js';
import type { KubeObject } from '../resources/types.js';
import { Collection, type StoreEvent, type Stored } from './collection.js';

export interface StoreOptions {
  /** events retained per collection for watch resumption (older -> 410 Expired) */
  watchWindow: number;
}

export type StoreListener = (storageKey: string, e: StoreEvent) => void;

export class Store {
  private rv = 1;
  private readonly collections = new Map<string, Collection>();
  private readonly listeners = new Set<StoreListener>();

  constructor(private readonly opts: StoreOptions) {}

  currentRv(): number {
    return this.rv;
  }

  collection(storageKey: string): Collection {
    let c = this.collections.get(storageKey);
    if (!c) {
      c = new Collection(this.opts.watchWindow);
      this.collections.set(storageKey, c);
    }
    return c;
  }

  get(storageKey: string, namespace: string | undefined, name: string): Stored | undefined {
    return this.collections.get(storageKey)?.items.get(Collection.key(namespace, name));
  }

  /** Subscribe to every committed event (in-process controllers: GC, namespaces, CRDs). */
  onEvent(l: StoreListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Commit a create or update; the caller has already checked preconditions. */
  put(storageKey: string, obj: KubeObject): Stored {
    const c = this.collection(storageKey);
    const k = Collection.key(obj.metadata.namespace, obj.metadata.name!);
    const previous = c.items.get(k);
    const rv = ++this.rv;
    dropEmptyMeta(obj);
    dropEmptyStatus(obj);
    obj.metadata.resourceVersion = String(rv);
    const stored: Stored = { obj, json: JSON.stringify(obj), rv };
    this.emit(storageKey, c, { type: previous ? 'MODIFIED' : 'ADDED', rv, current: stored, previous });
    return stored;
  }

  /** Remove an object; the DELETED event carries the deletion's own resourceVersion. */
  remove(storageKey: string, namespace: string | undefined, name: string): Stored | undefined {
    const c = this.collections.get(storageKey);
    const previous = c?.items.get(Collection.key(namespace, name));
    if (!c || !previous) return undefined;
    const rv = ++this.rv;
    const obj = { ...previous.obj, metadata: { ...previous.obj.metadata, resourceVersion: String(rv) } };
    const stored: Stored = { obj, json: JSON.stringify(obj), rv };
    this.emit(storageKey, c, { type: 'DELETED', rv, current: stored, previous });
    return stored;
  }

  private emit(storageKey: string, c: Collection, e: StoreEvent) {
    c.apply(e);
    for (const l of this.listeners) l(storageKey, e);
  }
}

export type { Stored, StoreEvent };
export { Collection };
