// A supervised client-node informer. client-node's ListWatch relists on 410 but stops
// for good on any other error (and stop() itself emits 'error'), so this wrapper
// restarts it with backoff unless it was stopped on purpose, keeps the previous
// version of each object so handlers see (old, new), and reports when it has synced.
import * as k8s from '@kubernetes/client-node';

type Obj = k8s.KubernetesObject;
export type Handler<T> = {
  add?: (obj: T) => void;
  update?: (obj: T, old: T) => void;
  delete?: (obj: T) => void;
};

export interface InformerHealth {
  path: string;
  synced: boolean;
  restarts: number;
  lastError?: string;
}

const key = (o: Obj) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export class SupervisedInformer<T extends Obj> {
  private informer: (k8s.Informer<T> & k8s.ObjectCache<T>) | undefined;
  private readonly known = new Map<string, T>();
  /** the same objects by namespace: controllers list one namespace of 150 000 pods */
  private readonly byNamespace = new Map<string, Map<string, T>>();
  private readonly handlers: Handler<T>[] = [];
  private stopped = true;
  private backoffMs = 200;
  private retry: NodeJS.Timeout | undefined;
  private syncWaiters: (() => void)[] = [];
  readonly health: InformerHealth;

  constructor(
    private readonly kc: k8s.KubeConfig,
    readonly path: string,
    private readonly listFn: () => Promise<k8s.KubernetesListObject<T>>,
    private readonly labelSelector?: string,
  ) {
    this.health = { path, synced: false, restarts: 0 };
  }

  on(h: Handler<T>) {
    this.handlers.push(h);
  }

  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.known.values()];
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  get size(): number {
    return this.known.size;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.known.get(`${namespace ?? ''}/${name}`);
  }

  /** Resolves once the first list has been delivered. */
  synced(): Promise<void> {
    if (this.health.synced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  async start() {
    if (!this.stopped) return;
    this.stopped = false;
    await this.launch();
  }

  private async launch() {
    const inf = k8s.makeInformer<T>(this.kc, this.path, this.listWithSync, this.labelSelector);
    this.informer = inf;
    inf.on('add', (o) => this.upsert(o));
    inf.on('update', (o) => this.upsert(o));
    inf.on('delete', (o) => this.remove(o));
    inf.on('error', (err) => this.failed(inf, err));
    try {
      await inf.start();
    } catch (err) {
      this.failed(inf, err);
    }
  }

  // wraps the list call so we learn when the cache is complete, and so that objects
  // that vanished while the informer was down are reported as deleted
  private listWithSync = async () => {
    const list = await this.listFn();
    const present = new Set(list.items.map(key));
    for (const [k, o] of this.known) if (!present.has(k)) this.remove(o);
    // setImmediate: after client-node has added the listed items to its cache
    setImmediate(() => {
      this.health.synced = true;
      this.backoffMs = 200;
      for (const w of this.syncWaiters.splice(0)) w();
    });
    return list;
  };

  private upsert(o: T) {
    const k = key(o);
    const old = this.known.get(k);
    this.known.set(k, o);
    this.indexed(o.metadata?.namespace ?? '').set(k, o);
    for (const h of this.handlers) {
      if (old) h.update?.(o, old);
      else h.add?.(o);
    }
  }

  private remove(o: T) {
    const k = key(o);
    const last = this.known.get(k) ?? o;
    if (!this.known.delete(k)) return;
    const ns = last.metadata?.namespace ?? '';
    const inNs = this.byNamespace.get(ns);
    inNs?.delete(k);
    if (inNs?.size === 0) this.byNamespace.delete(ns);
    for (const h of this.handlers) h.delete?.(last);
  }

  private indexed(namespace: string): Map<string, T> {
    let m = this.byNamespace.get(namespace);
    if (!m) this.byNamespace.set(namespace, (m = new Map()));
    return m;
  }

  private failed(inf: k8s.Informer<T>, err: unknown) {
    // errors from an informer we replaced or stopped on purpose are expected noise
    if (this.stopped || inf !== this.informer) return;
    this.health.lastError = err instanceof Error ? err.message : String(err);
    this.health.restarts++;
    this.informer = undefined;
    void inf.stop().catch(() => undefined);
    this.retry = setTimeout(() => void this.launch(), this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, 10_000);
  }

  async stop() {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const inf = this.informer;
    this.informer = undefined;
    await inf?.stop().catch(() => undefined);
  }
}
