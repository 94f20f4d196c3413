// An informer cache that also remembers what this controller just wrote, until the
// watch delivers that version. Without it a controller acts on the copy from before
// its own write and meets a 409 it caused itself (client-go's mutation cache).
import type * as k8s from '@kubernetes/client-node';
import type { SupervisedInformer } from '../runtime/informer.js';

const key = (o: k8s.KubernetesObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
/** never trust a remembered write longer than this (the watch may have skipped it) */
const TTL_MS = 10_000;

function newer(a: string | undefined, b: string | undefined): boolean {
  const [x, y] = [Number(a), Number(b)];
  return Number.isInteger(x) && Number.isInteger(y) && x > y;
}

export class FreshCache<T extends k8s.KubernetesObject> {
  private readonly written = new Map<string, { obj: T; at: number }>();

  constructor(private readonly inf: SupervisedInformer<T>) {
    const seen = (o: T) => {
      const w = this.written.get(key(o));
      const rv = o.metadata?.resourceVersion;
      if (w && (rv === w.obj.metadata?.resourceVersion || newer(rv, w.obj.metadata?.resourceVersion)))
        this.written.delete(key(o));
    };
    inf.on({ add: seen, update: seen, delete: (o) => this.written.delete(key(o)) });
  }

  /** Remember the object a write returned; returns it for chaining. */
  wrote(o: T): T {
    this.written.set(key(o), { obj: o, at: Date.now() });
    return o;
  }

  private recent(k: string): T | undefined {
    const w = this.written.get(k);
    if (w && Date.now() - w.at < TTL_MS) return w.obj;
    this.written.delete(k);
    return undefined;
  }

  get(name: string, namespace?: string): T | undefined {
    const cached = this.inf.get(name, namespace);
    if (!cached) return undefined; // deleted since: the watch is the authority on deletion
    return this.recent(`${namespace ?? ''}/${name}`) ?? cached;
  }

  list(): T[] {
    return this.inf.list().map((o) => this.recent(key(o)) ?? o);
  }
}
