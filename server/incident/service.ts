// The incident view's server side: per cluster, a sampler that records the situation's counts
// every ~10 s in an in-memory ring (enough for the 5- and 15-minute changes) and in the history
// store, so a restart (or another replica, on a shared PostgreSQL) keeps the trend: the ring is
// filled from the store once it opens. The view itself is computed on request from the
// server's memory. Listeners hear when a cluster's counts changed between samples (the incident
// feed pushes that to browsers: a node turning suspect changes no object, only time passing does).
import { situationOf } from '../../lib/incident/situation.js';
import { KEEP_SAMPLES_MS, mergeSamples, pushSample } from '../../lib/incident/trend.js';
import type { IncidentView, Situation, SituationSample } from '../../lib/incident/types.js';
import { incidentView } from '../../lib/incident/view.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { HistoryService } from '../history/service.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import { gather, type IncidentServices } from './gather.js';
import { type LoopEntry, loopsOn } from '../loops.js';
import { type IncidentInformer, IncidentTracker, incidentInformer, incidentsOf } from './tracker.js';
import { type IncidentObject, openIncident } from '../../lib/incident/record.js';

export const SAMPLE_EVERY_MS = 10_000;

const same = (a: Situation | undefined, b: Situation) =>
  !!a && Object.keys(b).every((k) => a[k as keyof Situation] === b[k as keyof Situation]);

export class IncidentService {
  private readonly samples = new Map<string, SituationSample[]>();
  private readonly listeners: ((cluster: string) => void)[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly log: Logger;
  /** the samples taken or queued, one after another */
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly clusters: Map<string, ClusterConnection>,
    private readonly services: IncidentServices,
    opts: {
      sampleEveryMs?: number;
      logger?: Logger;
      history?: HistoryService;
      /** the incident tracker (declares and resolves Incidents while this process leads); false: off */
      tracker?: { quietMs?: number } | false;
      /** the clusters that serve Incidents (servesIncidents); default: every one */
      served?: ReadonlySet<string>;
    } = {},
  ) {
    this.log = component('incident', {}, opts.logger ?? rootLogger);
    for (const conn of clusters.values()) {
      // a cluster that does not serve Incidents to this console (console.ts asked) gets no watch
      if (opts.served && !opts.served.has(conn.id)) continue;
      const informer = incidentInformer(conn.registry);
      this.informers.set(conn.id, informer);
      informer.start();
      // a read-only cluster is never written to: no tracker there (its incidents are still shown)
      if (opts.tracker === false || conn.spec.mode === 'read-only') continue;
      const tracker = new IncidentTracker({
        conn,
        services,
        informer,
        quietMs: opts.tracker?.quietMs,
        logger: opts.logger,
      });
      this.loopEntries.push(...loopsOn('incidents', conn.spec, [tracker.loop]));
    }
    this.history = opts.history;
    // the timer skips a beat while a sample is still being taken (a slow API): no pile-up
    this.timer = setInterval(
      () => this.queued === 0 && void this.sampleAll(),
      opts.sampleEveryMs ?? SAMPLE_EVERY_MS,
    );
    this.timer.unref();
    this.restored = this.restore();
  }

  private readonly history?: HistoryService;
  /** each cluster's Incidents (a projection of its shared watches) */
  readonly informers = new Map<string, IncidentInformer>();
  /** the trackers' loops, for server/loops.ts to add */
  readonly loopEntries: LoopEntry[] = [];

  /** The cluster's Incidents, newest first. */
  incidents(cluster: string): IncidentObject[] {
    const inf = this.informers.get(cluster);
    if (!inf) return [];
    return incidentsOf(inf).sort((a, b) => Date.parse(b.spec.startedAt) - Date.parse(a.spec.startedAt));
  }

  /** The cluster's open Incident, if any. */
  openIncident(cluster: string): IncidentObject | undefined {
    return openIncident(this.incidents(cluster));
  }
  /** settles once the samples kept before this process started are back in the rings */
  readonly restored: Promise<void>;

  /** Fills each cluster's ring with the store's samples (those of earlier runs and other replicas). */
  private async restore() {
    const store = await this.history?.ready;
    if (!store) return;
    for (const id of this.clusters.keys()) {
      try {
        const stored = await store.samples(id, Date.now() - KEEP_SAMPLES_MS);
        this.samples.set(id, mergeSamples(this.samples.get(id) ?? [], stored));
      } catch (e) {
        this.log.warn({ cluster: id, err: (e as Error).message }, 'incident: stored samples unreadable');
      }
    }
  }

  /** Keeps a sample in the store when it is open; the trend works from memory meanwhile. */
  private async persist(cluster: string, sample: SituationSample) {
    const store = this.history?.current();
    if (!store) return;
    try {
      await store.appendSample(cluster, sample, KEEP_SAMPLES_MS);
    } catch (e) {
      this.log.warn({ cluster, err: (e as Error).message }, 'incident: sample not stored');
    }
  }

  onSituationChange(l: (cluster: string) => void) {
    this.listeners.push(l);
  }

  /** One sample of every cluster (a sample still running is not started again). */
  /**
   * Sample every cluster now, after any sample already under way (whose reading may predate what
   * the caller just saw): when it resolves, the newest sample was taken after the call.
   */
  sampleAll(): Promise<void> {
    this.queued++;
    const run = this.queue.then(async () => {
      try {
        for (const conn of this.clusters.values()) await this.sample(conn);
      } finally {
        this.queued--;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async sample(conn: ClusterConnection) {
    try {
      const input = await gather(this.services, conn);
      const counts = situationOf(input);
      let ring = this.samples.get(conn.id);
      if (!ring) this.samples.set(conn.id, (ring = []));
      const before = ring.at(-1)?.counts;
      const sample = { at: input.now, counts };
      pushSample(ring, sample);
      if (!same(before, counts)) for (const l of this.listeners) l(conn.id);
      await this.persist(conn.id, sample);
    } catch (e) {
      this.log.warn(
        { cluster: conn.id, err: e instanceof Error ? e.message : String(e) },
        'incident sample failed',
      );
    }
  }

  samplesOf(cluster: string): SituationSample[] {
    return this.samples.get(cluster) ?? [];
  }

  /** The view now, with the protectors the person may see. */
  async view(
    conn: ClusterConnection,
    protectorVisible: (key: string) => boolean = () => true,
  ): Promise<IncidentView> {
    const input = await gather(this.services, conn);
    input.protectors = input.protectors.filter((p) => protectorVisible(p.key));
    return incidentView(input, this.samplesOf(conn.id), this.incidents(conn.id));
  }

  stop() {
    clearInterval(this.timer);
    for (const inf of this.informers.values()) void inf.stop().catch(() => undefined);
  }
}
