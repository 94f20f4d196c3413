// One collection (group+plural) of stored objects, with its own bounded event log so
// watches can resume from a resourceVersion, and the set of live watchers.
import type { KubeObject } from '../resources/types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Stored {
  obj: KubeObject;
  /** serialized once per write: list and watch reuse it */
  json: string;
  rv: number;
}

export interface StoreEvent {
  type: EventType;
  rv: number;
  current: Stored;
  /** the object before this event (MODIFIED/DELETED), to compute selector transitions */
  previous?: Stored;
}

export type Watcher = (e: StoreEvent) => void;

export class Collection {
  readonly items = new Map<string, Stored>();
  private sortedKeys: string[] | undefined;
  private log: StoreEvent[] = [];
  private logStart = 0;
  /** every event with rv > floor is still in the log */
  floor = 0;
  readonly watchers = new Set<Watcher>();
  /**
   * Watchers that can only see objects with one namespace or one spec.nodeName (every
   * namespaced watch, every kubelet's pod watch): delivered by key, so a write does not
   * visit thousands of watchers that would drop it.
   */
  private readonly keyed = new Map<string, Set<Watcher>>();

  constructor(private readonly capacity: number) {}

  static key(namespace: string | undefined, name: string) {
    return namespace ? `${namespace}/${name}` : name;
  }

  keys(): string[] {
    if (!this.sortedKeys) this.sortedKeys = [...this.items.keys()].sort();
    return this.sortedKeys;
  }

  apply(e: StoreEvent) {
    const meta = e.current.obj.metadata;
    const k = Collection.key(meta.namespace, meta.name!);
    if (e.type === 'DELETED') {
      this.items.delete(k);
      this.sortedKeys = undefined;
    } else {
      if (!this.items.has(k)) this.sortedKeys = undefined;
      this.items.set(k, e.current);
    }
    this.append(e);
    for (const w of this.watchers) w(e);
    if (this.keyed.size) this.deliverKeyed(e);
  }

  static keysOf(o: KubeObject | undefined): string[] {
    if (!o) return [];
    const keys: string[] = [];
    if (o.metadata.namespace) keys.push(`ns:${o.metadata.namespace}`);
    const node = (o as { spec?: { nodeName?: string } }).spec?.nodeName;
    if (node) keys.push(`node:${node}`);
    return keys;
  }

  private deliverKeyed(e: StoreEvent) {
    const keys = new Set([...Collection.keysOf(e.current.obj), ...Collection.keysOf(e.previous?.obj)]);
    const seen = new Set<Watcher>();
    for (const k of keys) {
      for (const w of this.keyed.get(k) ?? []) {
        if (seen.has(w)) continue;
        seen.add(w);
        w(e);
      }
    }
  }

  addWatcher(w: Watcher, key?: string) {
    if (!key) return this.watchers.add(w);
    let set = this.keyed.get(key);
    if (!set) this.keyed.set(key, (set = new Set()));
    set.add(w);
  }

  removeWatcher(w: Watcher, key?: string) {
    if (!key) return this.watchers.delete(w);
    const set = this.keyed.get(key);
    set?.delete(w);
    if (set?.size === 0) this.keyed.delete(key);
  }

  private append(e: StoreEvent) {
    this.log.push(e);
    const live = this.log.length - this.logStart;
    if (live > this.capacity) {
      this.floor = this.log[this.logStart].rv;
      this.logStart++;
      // compact the array now and then instead of shifting on every write
      if (this.logStart > this.capacity) {
        this.log = this.log.slice(this.logStart);
        this.logStart = 0;
      }
    }
  }

  /** Events after rv, or undefined when rv is older than the retained window. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.floor) return undefined;
    const out: StoreEvent[] = [];
    for (let i = this.log.length - 1; i >= this.logStart; i--) {
      if (this.log[i].rv <= rv) break;
      out.push(this.log[i]);
    }
    return out.reverse();
  }

  oldestRetained(): number {
    return this.floor;
  }
}
