// The history store: entries appended idempotently (the natural key with ON CONFLICT DO
// NOTHING, so replicas recording one Kubernetes fact write one row), the timeline's query, replay
// of node states at T and bounded retention — the same SQL on PGlite and PostgreSQL.
import {
  DEFAULT_KINDS,
  type ParsedTimelineFilter,
  searchText,
  type TimelineFilter,
  timelineFilter,
} from '../../lib/history/filter.js';
import { nodeOf, REPLAY_KINDS, type Replay, replayNodes } from '../../lib/history/replay.js';
import { type HistoryEntry, historyEntry } from '../../lib/history/types.js';
import { situationCounts } from '../../lib/incident/trend.js';
import type { SituationSample } from '../../lib/incident/types.js';
import { migrate } from './migrations.js';
import type { Sql } from './sql.js';

export interface HistoryStore {
  readonly backend: 'pglite' | 'postgres';
  /** where: the PGlite directory or the server's URL without its password */
  readonly location: string;
  /** Writes what is new; returns how many rows were new (a fact already recorded counts 0). */
  append(entries: HistoryEntry[]): Promise<number>;
  /** The timeline: newest first. */
  query(filter: TimelineFilter): Promise<HistoryEntry[]>;
  /** The node states at `at`; `nodes` are shown even with no entry (as unrecorded). */
  replay(cluster: string, at: string, nodes?: string[]): Promise<Replay>;
  /** Deletes up to `max` entries older than `before`; returns how many. */
  prune(before: Date, max: number): Promise<number>;
  /**
   * Keeps one situation sample (the incident view's trend) and drops the cluster's samples
   * older than keepMs before it: only the trend's windows are kept, not the retention.
   */
  appendSample(cluster: string, sample: SituationSample, keepMs: number): Promise<void>;
  /** The cluster's samples since `since` (ms), oldest first; a row that is not a whole sample is skipped. */
  samples(cluster: string, since: number): Promise<SituationSample[]>;
  close(): Promise<void>;
}

const COLUMNS = [
  'cluster',
  'id',
  'at',
  'kind',
  'severity',
  'subject_kind',
  'subject_namespace',
  'subject_name',
  'subject_uid',
  'node',
  'actor',
  'reason',
  'message',
  'details',
  'search',
] as const;
/** rows per INSERT: 15 parameters each, well under PostgreSQL's 65535 */
const CHUNK = 500;

/**
 * PostgreSQL's text and jsonb cannot hold NUL. An Event anyone may create can carry one, and one
 * such entry would fail every write of its chunk, retried for good: the history would stop.
 * Stored as U+FFFD instead.
 */
const noNul = <T>(v: T): T => (typeof v === 'string' ? (v.replaceAll('\u0000', '\uFFFD') as T) : v);

function values(e: HistoryEntry): unknown[] {
  const s = e.subject;
  return [
    e.cluster,
    e.id,
    e.at,
    e.kind,
    e.severity,
    s.kind,
    s.namespace ?? null,
    s.name,
    s.uid ?? null,
    nodeOf(e) ?? null,
    e.actor ?? null,
    e.reason,
    e.message,
    e.details === undefined ? null : JSON.stringify(e.details, (_, v) => noNul(v)),
    searchText(e),
  ].map(noNul);
}

type Row = Record<(typeof COLUMNS)[number], unknown>;

function entryOf(r: Row): HistoryEntry {
  const at = r.at instanceof Date ? r.at : new Date(String(r.at));
  const details = typeof r.details === 'string' ? JSON.parse(r.details) : r.details;
  return {
    id: String(r.id),
    cluster: String(r.cluster),
    at: at.toISOString(),
    kind: r.kind as HistoryEntry['kind'],
    severity: r.severity as HistoryEntry['severity'],
    subject: {
      kind: String(r.subject_kind),
      ...(r.subject_namespace ? { namespace: String(r.subject_namespace) } : {}),
      name: String(r.subject_name),
      ...(r.subject_uid ? { uid: String(r.subject_uid) } : {}),
    },
    ...(r.actor ? { actor: String(r.actor) } : {}),
    reason: String(r.reason),
    message: String(r.message),
    ...(details ? { details } : {}),
  };
}

const SELECT = `select ${COLUMNS.join(', ')} from history_entries`;

export class SqlHistoryStore implements HistoryStore {
  private constructor(
    private readonly sql: Sql,
    readonly location: string,
  ) {}

  get backend() {
    return this.sql.backend;
  }

  /** Applies the migrations, then serves. */
  static async open(sql: Sql, location: string): Promise<SqlHistoryStore> {
    await migrate(sql);
    return new SqlHistoryStore(sql, location);
  }

  async append(entries: HistoryEntry[]): Promise<number> {
    // what the recorder derived is checked here too: a bad entry is dropped, never half-written
    const valid = entries.filter((e) => historyEntry.safeParse(e).success);
    let added = 0;
    for (let i = 0; i < valid.length; i += CHUNK) {
      const chunk = valid.slice(i, i + CHUNK);
      const params = chunk.flatMap(values);
      const rows = chunk.map(
        (_, r) =>
          `(${COLUMNS.map((c, k) => `$${r * COLUMNS.length + k + 1}${c === 'details' ? '::jsonb' : ''}`).join(', ')})`,
      );
      const r = await this.sql.query(
        `insert into history_entries (${COLUMNS.join(', ')}) values ${rows.join(', ')} on conflict (cluster, id) do nothing`,
        params,
      );
      added += r.affected;
    }
    return added;
  }

  async query(filter: TimelineFilter): Promise<HistoryEntry[]> {
    const f: ParsedTimelineFilter = timelineFilter.parse(filter);
    const params: unknown[] = [f.cluster, f.from, f.to];
    let where = 'cluster = $1 and at >= $2 and at <= $3';
    params.push(f.kinds?.length ? f.kinds : [...DEFAULT_KINDS]);
    where += ` and kind = any($${params.length}::text[])`;
    const q = f.q?.trim().toLowerCase();
    if (q) {
      params.push(q);
      where += ` and strpos(search, $${params.length}) > 0`;
    }
    params.push(f.limit);
    const r = await this.sql.query<Row>(
      `${SELECT} where ${where} order by at desc, id asc limit $${params.length}`,
      params,
    );
    return r.rows.map(entryOf);
  }

  async replay(cluster: string, at: string, nodes: string[] = []): Promise<Replay> {
    // the last entry of each kind per node at or before T is all replay needs
    const r = await this.sql.query<Row>(
      `select distinct on (kind, node) ${COLUMNS.join(', ')} from history_entries
       where cluster = $1 and node is not null and kind = any($2::text[]) and at <= $3
       order by kind, node, at desc, id desc`,
      [cluster, [...REPLAY_KINDS], at],
    );
    // each pod's last placement entry at or before T: where it ran then, unless it was deleted
    const pods = await this.sql.query<Row>(
      `select distinct on (subject_uid) ${COLUMNS.join(', ')} from history_entries
       where cluster = $1 and kind = 'pod' and subject_uid is not null and at <= $2
       order by subject_uid, at desc, id desc`,
      [cluster, at],
    );
    return replayNodes(cluster, [...r.rows.map(entryOf), ...pods.rows.map(entryOf)], at, nodes);
  }

  async prune(before: Date, max: number): Promise<number> {
    const r = await this.sql.query(
      'delete from history_entries where ctid in (select ctid from history_entries where at < $1 limit $2)',
      [before.toISOString(), max],
    );
    return r.affected;
  }

  async appendSample(cluster: string, sample: SituationSample, keepMs: number): Promise<void> {
    // several replicas may sample at one instant: the first row stands
    await this.sql.query(
      'insert into situation_samples (cluster, at, counts) values ($1, $2, $3::jsonb) on conflict (cluster, at) do nothing',
      [cluster, new Date(sample.at).toISOString(), JSON.stringify(sample.counts)],
    );
    await this.sql.query('delete from situation_samples where cluster = $1 and at < $2', [
      cluster,
      new Date(sample.at - keepMs).toISOString(),
    ]);
  }

  async samples(cluster: string, since: number): Promise<SituationSample[]> {
    const r = await this.sql.query<{ at: unknown; counts: unknown }>(
      'select at, counts from situation_samples where cluster = $1 and at >= $2 order by at',
      [cluster, new Date(since).toISOString()],
    );
    return r.rows.flatMap((row) => {
      const at = row.at instanceof Date ? row.at.getTime() : Date.parse(String(row.at));
      const raw = typeof row.counts === 'string' ? JSON.parse(row.counts) : row.counts;
      const counts = situationCounts.safeParse(raw);
      return counts.success && Number.isFinite(at) ? [{ at, counts: counts.data }] : [];
    });
  }

  close() {
    return this.sql.close();
  }
}
