// The history store's schema, applied in order by both back ends at open (under an advisory lock
// on PostgreSQL, so replicas starting together migrate once). Append a migration; never edit one
// that has shipped.
import type { Query, Sql } from './sql.js';

export const MIGRATIONS: { version: number; statements: string[] }[] = [
  {
    version: 1,
    statements: [
      `create table if not exists history_entries (
        cluster text not null,
        id text not null,
        at timestamptz not null,
        kind text not null,
        severity text not null,
        subject_kind text not null,
        subject_namespace text,
        subject_name text not null,
        subject_uid text,
        node text,
        actor text,
        reason text not null,
        message text not null,
        details jsonb,
        search text not null,
        recorded_at timestamptz not null default now(),
        primary key (cluster, id)
      )`,
      'create index if not exists history_entries_cluster_at on history_entries (cluster, at desc)',
      'create index if not exists history_entries_node on history_entries (cluster, node, kind, at desc)',
      'create index if not exists history_entries_at on history_entries (at)',
    ],
  },
  {
    // the incident view's situation counts every ~10 s, so a restart keeps the 5/15-minute trend
    version: 2,
    statements: [
      `create table if not exists situation_samples (
        cluster text not null,
        at timestamptz not null,
        counts jsonb not null,
        primary key (cluster, at)
      )`,
    ],
  },
  {
    // replay's pods: each pod's last placement entry at or before T
    version: 3,
    statements: [
      'create index if not exists history_entries_pods on history_entries (cluster, kind, subject_uid, at desc)',
    ],
  },
];

/** pg_advisory_lock's key for the migrations (any constant both back ends agree on) */
const LOCK_KEY = 0x5a1_15ad;

async function applied(q: Query): Promise<Set<number>> {
  await q(
    'create table if not exists history_migrations (version integer primary key, applied_at timestamptz not null default now())',
  );
  const r = await q<{ version: number }>('select version from history_migrations');
  return new Set(r.rows.map((x) => Number(x.version)));
}

/** Applies the missing migrations; returns their versions. */
export async function migrate(sql: Sql): Promise<number[]> {
  return sql.exclusive(LOCK_KEY, async (q) => {
    const done = await applied(q);
    const todo = MIGRATIONS.filter((m) => !done.has(m.version));
    for (const m of todo) {
      for (const s of m.statements) await q(s);
      await q('insert into history_migrations (version) values ($1) on conflict do nothing', [m.version]);
    }
    return todo.map((m) => m.version);
  });
}
