// `npm run bench:history`: what the incident history store costs, in one run: PGlite as Palisade
// runs it (in a worker thread), PGlite on the main thread (how it ran before: the comparison that
// says why the worker is there) and Debian's PostgreSQL (testenv/postgres; skipped, and said so,
// when it is missing). For each: opening a new store, appending a storm's worth of entries in the
// recorder's batches, reading the 1000 newest and a replay of 50 nodes, and the longest stall of
// the event loop while appending — the time the webhook and the console could not answer.
// Figures and ratios go to bench/history/RESULTS.md, folded into bench/RESULTS.md.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { HistoryEntry } from '../../lib/history/types.js';
import { pgliteSql, postgresSql, type Query, type Sql } from '../../server/history/sql.js';
import { SqlHistoryStore } from '../../server/history/store.js';
import { postgresMissing, startPostgres } from '../../testenv/postgres/server.js';
import { benchResults, fmt, type Row } from '../report.js';

const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const quick = process.argv.includes('--quick');
const N = quick ? 5_000 : 20_000;
const BATCH = 100;
const NODES = 50;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const log = (m: string) => console.log(`[bench:history] ${m}`);

const entry = (i: number): HistoryEntry => ({
  id: `bench-${i}`,
  cluster: 'bench',
  at: new Date(T0 + i * 100).toISOString(),
  kind: i % 3 === 0 ? 'node-condition' : 'warning-event',
  severity: 'warning',
  subject: { kind: 'Node', name: `n${i % NODES}` },
  reason: i % 3 === 0 ? 'NotReady' : 'NodeNotReady',
  message: `node n${i % NODES} is not ready (entry ${i})`,
  details: { ready: i % 2 ? 'Unknown' : 'False' },
});

/** PGlite on this thread, as the store ran it before the worker: for the comparison only. */
async function mainThreadPglite(dir: string): Promise<Sql> {
  const db = await PGlite.create(dir);
  const query: Query = async (text, params) => {
    const r = await db.query(text, params as unknown[]);
    return { rows: r.rows as never[], affected: r.affectedRows ?? 0 };
  };
  return {
    backend: 'pglite',
    query,
    exclusive: (_key, fn) =>
      db.transaction(async (tx) =>
        fn((t, p) =>
          tx
            .query(t, p as unknown[])
            .then((r) => ({ rows: r.rows as never[], affected: r.affectedRows ?? 0 })),
        ),
      ),
    close: () => db.close(),
  };
}

/** The longest gap between 10 ms timer ticks while `work` runs: how long the event loop stalled. */
async function stallOf<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number; ms: number }> {
  let last = performance.now();
  let worst = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  const t0 = performance.now();
  try {
    const value = await work();
    // the gap since the last tick counts too: work that never yields to timers (promise chains
    // over synchronous calls) lets none of them run at all
    worst = Math.max(worst, performance.now() - last - 10);
    return { value, stallMs: Math.max(0, worst), ms: performance.now() - t0 };
  } finally {
    clearInterval(tick);
  }
}

interface Measured {
  name: string;
  openMs: number;
  appendPerS: number;
  appendStallMs: number;
  newestMs: number;
  replayMs: number;
  closeStallMs: number;
}

async function measure(name: string, open: () => Promise<Sql>): Promise<Measured> {
  log(`${name}: opening`);
  const opened = await stallOf(async () => SqlHistoryStore.open(await open(), name));
  const store = opened.value;
  const all = Array.from({ length: N }, (_, i) => entry(i));
  const appended = await stallOf(async () => {
    for (let i = 0; i < all.length; i += BATCH) await store.append(all.slice(i, i + BATCH));
  });
  const to = new Date(T0 + N * 100).toISOString();
  const newest = await stallOf(() =>
    store.query({ cluster: 'bench', from: new Date(T0).toISOString(), to, limit: 1000 }),
  );
  if (newest.value.length !== 1000) throw new Error(`${name}: ${newest.value.length} newest, not 1000`);
  const replay = await stallOf(() => store.replay('bench', to));
  const closed = await stallOf(() => store.close());
  const m = {
    name,
    openMs: opened.ms,
    appendPerS: (N / appended.ms) * 1000,
    appendStallMs: appended.stallMs,
    newestMs: newest.ms,
    replayMs: replay.ms,
    closeStallMs: closed.stallMs,
  };
  log(
    `${name}: open ${fmt(m.openMs)} ms, ${fmt(m.appendPerS)} appends/s (longest stall ${fmt(m.appendStallMs)} ms), 1000 newest ${fmt(m.newestMs)} ms, replay ${fmt(m.replayMs)} ms, close stall ${fmt(m.closeStallMs)} ms`,
  );
  return m;
}

function rowsOf(m: Measured, section: string, stallTarget?: Row['target']): Row[] {
  return [
    { section, metric: 'open a new store (create, migrate)', value: m.openMs, unit: 'ms' },
    {
      section,
      metric: 'append',
      value: m.appendPerS,
      unit: 'entries/s',
      note: `${fmt(N)} entries in batches of ${BATCH}, one after another`,
    },
    {
      section,
      metric: 'longest event-loop stall while appending',
      value: m.appendStallMs,
      unit: 'ms',
      target: stallTarget,
      note: 'the time the webhook and the console could not answer',
    },
    { section, metric: 'read the 1000 newest', value: m.newestMs, unit: 'ms' },
    { section, metric: `replay ${NODES} nodes at a time`, value: m.replayMs, unit: 'ms' },
    { section, metric: 'longest event-loop stall while closing', value: m.closeStallMs, unit: 'ms' },
  ];
}

async function main() {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'palisade-bench-history-'));
  const rows: Row[] = [];
  const setup = [
    `${fmt(N)} entries (node conditions and Warning events about ${NODES} nodes), appended ${BATCH} at a time as the recorder batches them`,
    'event-loop stall: the longest gap between 10 ms timer ticks on the main thread during the step',
  ];
  try {
    const worker = await measure('PGlite, worker thread', () => pgliteSql(join(dir, 'worker')));
    rows.push(...rowsOf(worker, 'PGlite (worker thread, as Palisade runs it)', { op: '<=', value: 100 }));
    const main = await measure('PGlite, main thread', () => mainThreadPglite(join(dir, 'main')));
    rows.push(...rowsOf(main, 'PGlite on the main thread (before)'));
    rows.push({
      section: 'ratios',
      metric: 'longest append stall, main thread / worker',
      value: main.appendStallMs / Math.max(1, worker.appendStallMs),
      unit: '×',
    });
    const missing = postgresMissing();
    if (missing) setup.push(`PostgreSQL: not measured (${missing})`);
    else {
      const pg = await startPostgres();
      try {
        const m = await measure('PostgreSQL', async () => postgresSql(pg.url, () => undefined));
        rows.push(...rowsOf(m, 'PostgreSQL (Debian 15, TCP on 127.0.0.1)', { op: '<=', value: 100 }));
        rows.push({
          section: 'ratios',
          metric: 'append rate, PostgreSQL / PGlite worker',
          value: m.appendPerS / worker.appendPerS,
          unit: '×',
        });
      } finally {
        await pg.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const text = benchResults({
    title: 'History store benchmark',
    command: `npm run bench:history${quick ? ' -- --quick' : ''}`,
    durationS: (Date.now() - started) / 1000,
    setup,
    rows,
  });
  await writeFile(RESULTS, `${text}\n`);
  log(`results: ${RESULTS}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
