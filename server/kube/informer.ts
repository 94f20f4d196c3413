// A supervised list-watch that keeps only trimmed views. Unlike client-node's informer
// it never holds the full objects (at 150 000 pods the managedFields alone would dwarf
// the views), it restarts with backoff on any error other than 410 Gone (which just
// relists), ignores callbacks from a watch it stopped on purpose, hands (new, old) to
// handlers and reports its health. Objects that vanished while it was down are
// reported as deleted when it relists. It logs a failure once per cause (an API server that
// stays away is one line, not one per retry) and says when it is back.
import * as k8s from '@kubernetes/client-node';
import { component, type Logger } from '../log.js';

type Obj = k8s.KubernetesObject;
type Page<T> = { items: T[]; metadata?: { resourceVersion?: string; _continue?: string } };

export interface Handler<V> {
  add?: (view: V) => void;
  update?: (view: V, old: V) => void;
  delete?: (old: V) => void;
}

export interface InformerHealth {
  kind: string;
  /** the cache is complete and a watch is (re)starting from it; false while it is down */
  synced: boolean;
  restarts: number;
  lastError?: string;
}

export interface InformerSpec<T extends Obj, V> {
  kind: string;
  /** the collection's URL path, e.g. /api/v1/pods */
  path: string;
  list: (page: { limit: number; _continue?: string }) => Promise<Page<T>>;
  project: (obj: T) => V;
}

export interface InformerTuning {
  pageSize?: number;
  /** the API server ends each watch after about this long; we then resume from the last version */
  watchSeconds?: number;
  maxBackoffMs?: number;
}

export const objectKey = (o: Obj) =>
  o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata?.name ?? '');

export class SupervisedInformer<T extends Obj, V> {
  private readonly store = new Map<string, V>();
  private readonly handlers: Handler<V>[] = [];
  private readonly healthListeners: (() => void)[] = [];
  private stopped = true;
  private generation = 0;
  private resourceVersion = '';
  private backoffMs = 200;
  private timer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private abort: AbortController | undefined;
  private firstSync: Promise<void>;
  private markFirstSync!: () => void;
  readonly health: InformerHealth;
  private readonly log: Logger;
  /** the failure last logged, until the cache is whole again */
  private loggedError: string | undefined;

  /** `logger`: where its lines go (component 'informer', with the kind); context such as { cluster } on it */
  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly spec: InformerSpec<T, V>,
    private readonly tuning: InformerTuning = {},
    logger?: Logger,
  ) {
    this.health = { kind: spec.kind, synced: false, restarts: 0 };
    this.log = component('informer', { kind: spec.kind }, logger);
    this.firstSync = new Promise((r) => (this.markFirstSync = r));
  }

  get kind() {
    return this.spec.kind;
  }

  on(h: Handler<V>) {
    this.handlers.push(h);
  }

  onHealth(listener: () => void) {
    this.healthListeners.push(listener);
  }

  get(key: string): V | undefined {
    return this.store.get(key);
  }

  values(): IterableIterator<V> {
    return this.store.values();
  }

  get size() {
    return this.store.size;
  }

  /** Resolves once the first complete list has been delivered. */
  synced(): Promise<void> {
    return this.firstSync;
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    void this.relist();
  }

  async stop() {
    this.stopped = true;
    this.generation++;
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    this.abort?.abort();
    this.abort = undefined;
  }

  private async relist() {
    const gen = ++this.generation;
    try {
      const { items, resourceVersion } = await this.listAll();
      if (gen !== this.generation) return;
      this.replace(items);
      this.resourceVersion = resourceVersion;
      if (this.loggedError !== undefined)
        this.log.info({ objects: this.store.size, restarts: this.health.restarts }, 'synced again');
      else this.log.debug({ objects: this.store.size }, 'synced');
      this.loggedError = undefined;
      this.setHealth({ synced: true });
      this.backoffMs = 200;
      this.markFirstSync();
      await this.watch(gen);
    } catch (err) {
      this.failed(gen, err);
    }
  }

  // pages like client-go (500 a page); the first page's version is where the watch
  // resumes, so at worst a change is replayed, never missed
  private async listAll() {
    const items: T[] = [];
    let resourceVersion = '';
    let token: string | undefined;
    do {
      const page = await this.spec.list({ limit: this.tuning.pageSize ?? 500, _continue: token });
      items.push(...page.items);
      resourceVersion ||= page.metadata?.resourceVersion ?? '';
      token = page.metadata?._continue || undefined;
    } while (token);
    return { items, resourceVersion };
  }

  private replace(items: T[]) {
    const present = new Set<string>();
    for (const o of items) {
      present.add(objectKey(o));
      this.upsert(o);
    }
    for (const [k, old] of this.store) if (!present.has(k)) this.remove(k, old);
  }

  private async watch(gen: number) {
    const seconds = this.tuning.watchSeconds ?? 240 + Math.floor(Math.random() * 120);
    const started = Date.now();
    let gone = false;
    const onEvent = (type: string, obj: any) => {
      if (gen !== this.generation) return;
      this.armWatchdog(gen, seconds);
      if (type === 'ERROR') {
        gone = obj?.code === 410;
        if (!gone) this.failed(gen, new Error(obj?.message ?? 'watch error'));
        return;
      }
      const rv = obj?.metadata?.resourceVersion;
      if (rv) this.resourceVersion = rv;
      if (type === 'ADDED' || type === 'MODIFIED') this.upsert(obj);
      else if (type === 'DELETED') this.remove(objectKey(obj));
    };
    const done = (err: unknown) => {
      if (gen !== this.generation || this.stopped) return;
      if (err) return this.failed(gen, err);
      if (gone) {
        this.log.debug('resource version too old (410): relisting');
        return void this.relist();
      }
      // a normal end (timeoutSeconds): resume at once, unless it keeps ending at once
      const quick = Date.now() - started < 1000;
      this.timer = setTimeout(() => void this.rewatch(gen), quick ? this.nextBackoff() : 0);
    };
    this.armWatchdog(gen, seconds);
    const query = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: seconds,
    };
    const abort = await new k8s.Watch(this.kc).watch(this.spec.path, query, onEvent, done);
    if (gen === this.generation) this.abort = abort;
    else abort.abort();
  }

  private async rewatch(gen: number) {
    if (gen !== this.generation || this.stopped) return;
    try {
      await this.watch(gen);
    } catch (err) {
      this.failed(gen, err);
    }
  }

  // a half-open connection never ends by itself: give up on a watch that has been
  // silent well past the time the API server should have ended it
  private armWatchdog(gen: number, seconds: number) {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.failed(gen, new Error('watch went silent')), (seconds + 30) * 1000);
    this.watchdog.unref();
  }

  private failed(gen: number, err: unknown) {
    // errors from a watch we replaced or stopped on purpose are expected noise
    if (gen !== this.generation || this.stopped) return;
    this.generation++;
    clearTimeout(this.watchdog);
    this.abort?.abort();
    this.abort = undefined;
    const lastError = err instanceof Error ? err.message : String(err);
    this.setHealth({ synced: false, restarts: this.health.restarts + 1, lastError });
    const retryMs = this.nextBackoff();
    if (lastError !== this.loggedError)
      this.log.warn(
        { err: lastError, restarts: this.health.restarts, retryMs },
        'list-watch failed; relisting',
      );
    else
      this.log.debug({ err: lastError, restarts: this.health.restarts, retryMs }, 'list-watch failed again');
    this.loggedError = lastError;
    this.timer = setTimeout(() => void this.relist(), retryMs);
  }

  private nextBackoff() {
    const ms = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.tuning.maxBackoffMs ?? 10_000);
    return ms;
  }

  private setHealth(patch: Partial<InformerHealth>) {
    Object.assign(this.health, patch);
    for (const l of this.healthListeners) l();
  }

  private upsert(o: T) {
    const k = objectKey(o);
    const view = this.spec.project(o);
    const old = this.store.get(k);
    this.store.set(k, view);
    for (const h of this.handlers) {
      if (old === undefined) h.add?.(view);
      else h.update?.(view, old);
    }
  }

  private remove(k: string, known?: V) {
    const old = known ?? this.store.get(k);
    if (old === undefined || !this.store.delete(k)) return;
    for (const h of this.handlers) h.delete?.(old);
  }
}
