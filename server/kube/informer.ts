// Supervised list-watches that keep only trimmed views, shared: one watch per kind and cluster
// (a SharedInformer, found through the cluster's InformerRegistry) feeds every projection of
// it (a SupervisedInformer: the console's views, the aggregator's pod facts, the fencing
// controller's node facts...), each with its own store of views and handlers. Unlike
// client-node's informer — which stops for good on any error but 410 and emits `error` from
// stop() — it never holds the full objects (at 150 000 pods the managedFields alone would dwarf
// the views), restarts with backoff on any error other than 410 Gone (which just relists),
// ignores callbacks from a watch it stopped on purpose, hands (new, old) to handlers and reports
// its health. Objects that vanished while it was down are reported as deleted when it relists;
// a relist tells a projection only what changed for it (same resourceVersion: nothing). A
// projection that joins a running watch gets its first list from a relist of the shared watch.
// It logs a failure once per cause (an API server that stays away is one line, not one per
// retry) and says when it is back.
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

/** What to watch: the same path (and so the same kind and scope) is one shared watch. */
export interface WatchSpec<T extends Obj> {
  kind: string;
  /** the collection's URL path, e.g. /api/v1/pods */
  path: string;
  list: (page: { limit: number; _continue?: string }) => Promise<Page<T>>;
}

export interface InformerSpec<T extends Obj, V> extends WatchSpec<T> {
  project: (obj: T) => V;
}

export interface InformerTuning {
  pageSize?: number;
  /** the API server ends each watch after about this long; we then resume from the last version */
  watchSeconds?: number;
  maxBackoffMs?: number;
}

/** one object of a list: its key, its version and each projection's view of it */
interface Staged {
  k: string;
  rv?: string;
  views: [SupervisedInformer<any, any>, unknown][];
}

export const objectKey = (o: Obj) =>
  o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata?.name ?? '');

/** One list-watch of one kind on one cluster, feeding its projections. */
export class SharedInformer<T extends Obj> {
  /** resourceVersion per key as last delivered: a relist skips what did not change */
  private readonly versions = new Map<string, string>();
  private readonly projections = new Set<SupervisedInformer<T, any>>();
  private readonly healthListeners: (() => void)[] = [];
  private refs = 0;
  private stopped = true;
  private generation = 0;
  private resourceVersion = '';
  private backoffMs = 200;
  private timer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private abort: AbortController | undefined;
  readonly health: InformerHealth;
  private readonly log: Logger;
  /** the failure last logged, until the cache is whole again */
  private loggedError: string | undefined;
  /** ms: the last list, event or bookmark received, and since when the watch is down (the incident view's freshness) */
  private lastEventAt: number | undefined;
  private downSince: number | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly spec: WatchSpec<T>,
    private readonly tuning: InformerTuning = {},
    logger?: Logger,
  ) {
    this.health = { kind: spec.kind, synced: false, restarts: 0 };
    this.log = component('informer', { kind: spec.kind }, logger);
  }

  get kind() {
    return this.spec.kind;
  }

  /** How current the watch is: its last delivery, and since when it is down (if it is). */
  activity(): { lastEventAt?: number; downSince?: number } {
    return { lastEventAt: this.lastEventAt, downSince: this.downSince };
  }

  get path() {
    return this.spec.path;
  }

  onHealth(listener: () => void) {
    this.healthListeners.push(listener);
  }

  /** Add a projection; one joining a running watch gets its first list from a relist. */
  attach(p: SupervisedInformer<T, any>) {
    if (this.projections.has(p)) return;
    this.projections.add(p);
    if (!this.stopped && this.health.synced) {
      this.log.debug('a projection joined: relisting for it');
      this.generation++;
      clearTimeout(this.timer);
      this.abort?.abort();
      this.abort = undefined;
      void this.relist();
    }
  }

  detach(p: SupervisedInformer<T, any>) {
    this.projections.delete(p);
  }

  /** A user of the watch; the first starts it. */
  /** some projection has it started */
  get retained(): boolean {
    return this.refs > 0;
  }

  retain() {
    this.refs++;
    if (!this.stopped) return;
    this.stopped = false;
    void this.relist();
  }

  /** The last user gone: the watch stops. */
  async release() {
    this.refs = Math.max(0, this.refs - 1);
    if (this.refs === 0) await this.stop();
  }

  async stop() {
    this.refs = 0;
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
      // each page is projected as it arrives and then dropped: until the list is complete only
      // the views are kept (at 150 000 pods the list's full objects took about a GiB), then they
      // are applied at once, so a projection never sees half a list
      const staged: Staged[] = [];
      const resourceVersion = await this.listAll(gen, (o) => staged.push(this.stage(o)));
      if (gen !== this.generation) return;
      this.replace(staged);
      this.resourceVersion = resourceVersion;
      if (this.loggedError !== undefined)
        this.log.info({ objects: staged.length, restarts: this.health.restarts }, 'synced again');
      else this.log.debug({ objects: staged.length }, 'synced');
      this.loggedError = undefined;
      this.lastEventAt = Date.now();
      this.downSince = undefined;
      this.setHealth({ synced: true });
      this.backoffMs = 200;
      for (const p of this.projections) p.listed();
      await this.watch(gen);
    } catch (err) {
      this.failed(gen, err);
    }
  }

  // pages like client-go (500 a page), each handed to `each` and dropped; the first page's
  // version is where the watch resumes, so at worst a change is replayed, never missed. Stops
  // early when a newer relist or a stop replaced this one.
  private async listAll(gen: number, each: (o: T) => void): Promise<string> {
    let resourceVersion = '';
    let token: string | undefined;
    do {
      const page = await this.listPage(gen, token, each);
      if (!page) return resourceVersion;
      resourceVersion ||= page.resourceVersion;
      token = page.next;
    } while (token);
    return resourceVersion;
  }

  /** One page, handed to `each`; its objects are not referenced once this returns. */
  private async listPage(gen: number, token: string | undefined, each: (o: T) => void) {
    const page = await this.spec.list({ limit: this.tuning.pageSize ?? 500, _continue: token });
    if (gen !== this.generation) return undefined;
    for (const o of page.items) each(o);
    return {
      resourceVersion: page.metadata?.resourceVersion ?? '',
      next: page.metadata?._continue || undefined,
    };
  }

  /** An object of a list as its projections will take it: their views, made now. */
  private stage(o: T): Staged {
    const k = objectKey(o);
    const rv = o.metadata?.resourceVersion;
    // unchanged since delivered: only a projection that lacks it (one that just joined) hears of it
    const same = rv !== undefined && this.versions.get(k) === rv;
    const views: [SupervisedInformer<T, any>, unknown][] = [];
    for (const p of this.projections) if (!same || !p.has(k)) views.push([p, p.project(o)]);
    return { k, rv, views };
  }

  private replace(staged: Staged[]) {
    const present = new Set<string>();
    for (const { k, rv, views } of staged) {
      present.add(k);
      for (const [p, view] of views) p.upsertView(k, view);
      if (rv !== undefined) this.versions.set(k, rv);
      else this.versions.delete(k);
    }
    for (const k of this.versions.keys()) if (!present.has(k)) this.versions.delete(k);
    for (const p of this.projections) p.keep(present);
  }

  private async watch(gen: number) {
    const seconds = this.tuning.watchSeconds ?? 240 + Math.floor(Math.random() * 120);
    const started = Date.now();
    let gone = false;
    const onEvent = (type: string, obj: any) => {
      if (gen !== this.generation) return;
      this.armWatchdog(gen, seconds);
      this.lastEventAt = Date.now();
      if (type === 'ERROR') {
        gone = obj?.code === 410;
        if (!gone) this.failed(gen, new Error(obj?.message ?? 'watch error'));
        return;
      }
      const rv = obj?.metadata?.resourceVersion;
      if (rv) this.resourceVersion = rv;
      const k = objectKey(obj);
      if (type === 'ADDED' || type === 'MODIFIED') {
        if (rv) this.versions.set(k, rv);
        for (const p of this.projections) p.upsert(k, obj);
      } else if (type === 'DELETED') {
        this.versions.delete(k);
        for (const p of this.projections) p.remove(k);
      }
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
    this.downSince ??= Date.now();
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
}

/**
 * One projection of a (shared) list-watch: its own views and handlers. Made alone
 * (`new SupervisedInformer(kc, spec)`) it has a watch of its own; made by an InformerRegistry
 * it shares the cluster's watch of that kind with every other projection of it.
 */
export class SupervisedInformer<T extends Obj, V> {
  private readonly store = new Map<string, V>();
  private readonly handlers: Handler<V>[] = [];
  private readonly shared: SharedInformer<T>;
  private started = false;
  private firstSync: Promise<void>;
  private markFirstSync!: () => void;

  constructor(
    kc: k8s.KubeConfig | SharedInformer<T>,
    private readonly spec: InformerSpec<T, V>,
    tuning: InformerTuning = {},
    logger?: Logger,
  ) {
    this.shared = kc instanceof SharedInformer ? kc : new SharedInformer(kc, spec, tuning, logger);
    this.firstSync = new Promise((r) => (this.markFirstSync = r));
  }

  get kind() {
    return this.spec.kind;
  }

  /** the shared watch's health (every projection of it is as healthy as the watch) */
  get health(): InformerHealth {
    return this.shared.health;
  }

  /** the shared watch's last delivery and since when it is down */
  activity() {
    return this.shared.activity();
  }

  on(h: Handler<V>) {
    this.handlers.push(h);
  }

  onHealth(listener: () => void) {
    this.shared.onHealth(listener);
  }

  get(key: string): V | undefined {
    return this.store.get(key);
  }

  has(key: string): boolean {
    return this.store.has(key);
  }

  values(): IterableIterator<V> {
    return this.store.values();
  }

  get size() {
    return this.store.size;
  }

  /** Resolves once the first complete list has been delivered to this projection. */
  synced(): Promise<void> {
    return this.firstSync;
  }

  start() {
    if (this.started) return;
    this.started = true;
    this.shared.attach(this);
    this.shared.retain();
  }

  async stop() {
    if (!this.started) return;
    this.started = false;
    this.shared.detach(this);
    await this.shared.release();
  }

  /** @internal the shared watch delivered a complete list */
  listed() {
    this.markFirstSync();
  }

  /** @internal */
  upsert(k: string, o: T) {
    this.upsertView(k, this.spec.project(o));
  }

  /** @internal this projection's view of an object */
  project(o: T): V {
    return this.spec.project(o);
  }

  /** @internal */
  upsertView(k: string, view: V) {
    const old = this.store.get(k);
    this.store.set(k, view);
    for (const h of this.handlers) {
      if (old === undefined) h.add?.(view);
      else h.update?.(view, old);
    }
  }

  /** @internal drop what a relist no longer has */
  keep(present: Set<string>) {
    for (const k of [...this.store.keys()]) if (!present.has(k)) this.remove(k);
  }

  /** @internal */
  remove(k: string) {
    const old = this.store.get(k);
    if (old === undefined || !this.store.delete(k)) return;
    for (const h of this.handlers) h.delete?.(old);
  }
}

/**
 * The shared watches of one cluster: one per collection path, however many projections read
 * it. The console's ClusterConnection makes its informers here, and so do the loops (the
 * aggregators, the generator, the fencing controller), so a kind is watched once per cluster.
 */
export class InformerRegistry {
  private readonly watches = new Map<string, SharedInformer<any>>();
  private readonly created: ((s: SharedInformer<any>) => void)[] = [];

  constructor(
    readonly kc: k8s.KubeConfig,
    private readonly tuning: InformerTuning = {},
    private readonly logger?: Logger,
  ) {}

  /** A projection of the cluster's watch of spec.path (made on first use). Start it to use it. */
  informer<T extends Obj, V>(spec: InformerSpec<T, V>): SupervisedInformer<T, V> {
    let w = this.watches.get(spec.path) as SharedInformer<T> | undefined;
    if (!w) {
      w = new SharedInformer<T>(this.kc, spec, this.tuning, this.logger);
      this.watches.set(spec.path, w);
      for (const l of this.created) l(w);
    }
    return new SupervisedInformer<T, V>(w, spec);
  }

  /** every shared watch so far */
  all(): SharedInformer<any>[] {
    return [...this.watches.values()];
  }

  /** told of each shared watch made from now on */
  onCreate(l: (s: SharedInformer<any>) => void) {
    this.created.push(l);
  }

  /** Stop every watch, whoever still uses it. */
  async stop() {
    await Promise.all(this.all().map((w) => w.stop()));
  }
}
