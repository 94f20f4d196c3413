// The history store on both back ends, the same tests: PGlite in a temporary directory and a
// throwaway PostgreSQL server (testenv/postgres). On PostgreSQL also two stores sharing one
// database (two replicas recording the same facts) and a server restart; on PGlite a reopen.
// PostgreSQL missing: skipped with the reason outside CI, a failure in CI.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeConditionEntry, podEntries } from '../../lib/history/entries.js';
import type { HistoryEntry } from '../../lib/history/types.js';
import { input } from '../../lib/incident/fixtures.test-helpers.js';
import { situationOf } from '../../lib/incident/situation.js';
import { type PostgresServer, postgresMissing, startPostgres } from '../../testenv/postgres/server.js';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { newStoreFromTemplate, pruneOnce, startHistory, templatePath } from './service.js';
import { PGLITE_LIMITS, pgliteSql, postgresSql, redactedUrl } from './sql.js';
import { type HistoryStore, SqlHistoryStore } from './store.js';

const T0 = Date.parse('2026-11-27T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const missing = postgresMissing();
const pgSkip = missing !== undefined && process.env.CI !== 'true';
if (pgSkip) console.warn(`history store tests on PostgreSQL skipped: ${missing}`);

function fault(id: string, s: number, node: string, verb: string, cluster = 'c1'): HistoryEntry {
  return {
    id,
    cluster,
    at: at(s),
    kind: 'fault',
    severity: 'warning',
    subject: { kind: 'Node', name: node },
    actor: 'admin',
    reason: verb === 'heal' ? 'SimulatedHeal' : 'SimulatedPartition',
    message: `Palisade console (simulation): ${verb} ${node}`,
    details: { verb },
  };
}
const ready = (s: number, node: string, state: 'Ready' | 'Unknown') =>
  nodeConditionEntry('c1', { name: node, ready: state, readySince: T0 + s * 1000 }, T0 + s * 1000);

const HISTORY = [
  ready(0, 'a1-1', 'Ready'),
  ready(0, 'a1-2', 'Ready'),
  fault('f1', 10, 'a1-1', 'partition'),
  ready(18, 'a1-1', 'Unknown'),
  {
    id: 'fence:u1:Released:x',
    cluster: 'c1',
    at: at(40),
    kind: 'fence-step',
    severity: 'warning',
    subject: { kind: 'NodeFence', name: 'a1-1-fence', uid: 'u1' },
    actor: 'palisade',
    reason: 'Released',
    message: 'released the node’s pods and volumes',
    details: { node: 'a1-1', released: { pods: ['shop/db-0'], volumeAttachments: ['csi-1'] } },
  } satisfies HistoryEntry,
  fault('f2', 60, 'a1-1', 'heal'),
  ready(65, 'a1-1', 'Ready'),
  fault('other', 30, 'x-1', 'partition', 'c2'),
];

type Backend = {
  name: string;
  open(): Promise<HistoryStore>;
  reopen(): Promise<HistoryStore>;
  done(): Promise<void>;
};

function pgliteBackend(): Backend {
  let dir = '';
  return {
    name: 'PGlite',
    async open() {
      dir = await mkdtemp(join(tmpdir(), 'palisade-history-test-'));
      return SqlHistoryStore.open(await pgliteSql(join(dir, 'db')), dir);
    },
    async reopen() {
      return SqlHistoryStore.open(await pgliteSql(join(dir, 'db')), dir);
    },
    done: () => rm(dir, { recursive: true, force: true }),
  };
}

let server: PostgresServer | undefined;
function postgresBackend(): Backend {
  let db = '';
  const urlOf = () => server!.url.replace(/\/postgres$/, `/${db}`);
  return {
    name: 'PostgreSQL',
    async open() {
      server ??= await startPostgres();
      db = `h${Math.random().toString(36).slice(2, 10)}`;
      const admin = postgresSql(server.url, () => undefined);
      await admin.query(`create database ${db}`);
      await admin.close();
      return SqlHistoryStore.open(
        postgresSql(urlOf(), () => undefined),
        redactedUrl(urlOf()),
      );
    },
    async reopen() {
      await server!.restart();
      return SqlHistoryStore.open(
        postgresSql(urlOf(), () => undefined),
        redactedUrl(urlOf()),
      );
    },
    done: async () => undefined,
  };
}

afterAll(async () => {
  await server?.stop();
});

const backends = [
  { make: pgliteBackend, skip: false },
  { make: postgresBackend, skip: pgSkip },
];

describe.each(backends)('the history store on $make.name', ({ make, skip }) => {
  const backend = make();
  let store: HistoryStore;
  beforeAll(async () => {
    if (skip) return;
    store = await backend.open();
  }, 60_000);
  afterAll(async () => {
    if (skip) return;
    await store?.close();
    await backend.done();
  });

  it.skipIf(skip)('appends once per fact: a second append of the same entries adds nothing', async () => {
    expect(await store.append(HISTORY)).toBe(HISTORY.length);
    expect(await store.append(HISTORY)).toBe(0);
    expect(await store.append([{ ...HISTORY[2], message: 'seen again by another replica' }])).toBe(0);
  });

  it.skipIf(skip)('drops an invalid entry and keeps the rest', async () => {
    const bad = { ...fault('bad', 1, 'a1-1', 'partition'), kind: 'gossip' } as unknown as HistoryEntry;
    expect(await store.append([bad])).toBe(0);
  });

  it.skipIf(skip)('stores an Event text holding NUL (text cannot hold one) and goes on writing', async () => {
    const nul = {
      ...fault('nul', 1, 'z9-9', 'partition', 'c-nul'),
      message: 'a\u0000b',
      actor: 'x\u0000',
      details: { verb: 'p\u0000' },
    };
    expect(await store.append([nul, fault('after', 2, 'z9-9', 'heal', 'c-nul')])).toBe(2);
    const got = await store.query({ cluster: 'c-nul', from: at(0), to: at(100) });
    expect(got.map((e) => [e.id, e.message, e.actor, e.details])).toEqual([
      ['after', 'Palisade console (simulation): heal z9-9', 'admin', { verb: 'heal' }],
      ['nul', 'a\uFFFDb', 'x\uFFFD', { verb: 'p\uFFFD' }],
    ]);
  });

  it.skipIf(skip)('answers the timeline: window, kinds, text, newest first, one cluster', async () => {
    const base = { cluster: 'c1', from: at(0), to: at(100) };
    const ids = async (f: object) => (await store.query({ ...base, ...f })).map((e) => e.id);
    expect(await ids({})).toHaveLength(7);
    expect(await ids({ kinds: ['fault'] })).toEqual(['f2', 'f1']);
    expect(await ids({ q: 'HEAL' })).toEqual(['f2']);
    expect(await ids({ to: at(15), kinds: ['fault', 'node-condition'] })).toEqual([
      'f1',
      ...[HISTORY[0].id, HISTORY[1].id].sort(),
    ]);
    expect(await ids({ limit: 1 })).toEqual([HISTORY[6].id]);
    const [released] = await store.query({ ...base, kinds: ['fence-step'] });
    expect(released).toEqual(HISTORY[4]);
  });

  it.skipIf(skip)('replays node states at T', async () => {
    const states = async (s: number) =>
      Object.fromEntries((await store.replay('c1', at(s), ['b9-9'])).nodes.map((n) => [n.node, n]));
    expect((await states(5))['a1-1']).toMatchObject({ ready: 'Ready' });
    expect((await states(5))['b9-9']).toMatchObject({ ready: 'unrecorded' });
    expect((await states(30))['a1-1']).toMatchObject({ ready: 'Unknown', fault: { verb: 'partition' } });
    expect((await states(50))['a1-1']).toMatchObject({ ready: 'Unknown', fence: { phase: 'Released' } });
    expect((await states(70))['a1-1']).toMatchObject({ ready: 'Ready', fault: { verb: 'heal' } });
    expect((await states(70))['a1-2']).toMatchObject({ ready: 'Ready' });
  });

  it.skipIf(skip)(
    'replays where pods ran at T, from the last placement of each; the timeline leaves them out',
    async () => {
      const db = { uid: 'p-db', namespace: 'shop', name: 'orders-db-2', node: 'a1-1', createdAt: T0 };
      await store.append([
        ...podEntries('c1', db, undefined, T0),
        ...podEntries(
          'c1',
          { ...db, deletionTimestamp: T0 + 40_000, deletionGracePeriodSeconds: 30 },
          db,
          T0 + 12_000,
        ),
        ...podEntries('c1', undefined, db, T0 + 45_000),
        ...podEntries(
          'c1',
          { ...db, uid: 'p-db2', node: 'a1-2', createdAt: T0 + 46_000 },
          undefined,
          T0 + 47_000,
        ),
      ]);
      const pods = async (s: number) =>
        Object.fromEntries(
          (await store.replay('c1', at(s))).nodes.map((n) => [
            n.node,
            (n.pods ?? []).map((p) => [p.name, p.terminating]),
          ]),
        );
      expect(await pods(5)).toMatchObject({ 'a1-1': [['orders-db-2', false]], 'a1-2': [] });
      expect(await pods(20)).toMatchObject({ 'a1-1': [['orders-db-2', true]] });
      expect(await pods(50)).toMatchObject({ 'a1-1': [], 'a1-2': [['orders-db-2', false]] });
      const base = { cluster: 'c1', from: at(0), to: at(100) };
      expect((await store.query({ ...base, kinds: ['pod'] })).map((e) => e.reason).sort()).toEqual([
        'Bound',
        'Bound',
        'Deleted',
        'Terminating',
      ]);
      expect((await store.query(base)).some((e) => e.kind === 'pod')).toBe(false);
    },
  );

  it.skipIf(skip)('keeps the situation samples the trend needs, and no more', async () => {
    const counts = (n: number) => ({ ...situationOf(input()), nodesNotReady: n });
    const KEEP = 16 * 60_000;
    for (const [s, n] of [
      [-1200, 0],
      [-900, 1],
      [-300, 2],
      [0, 3],
    ])
      await store.appendSample('c1', { at: T0 + s * 1000, counts: counts(n) }, KEEP);
    // another replica sampling at the same instant: the first row stands
    await store.appendSample('c1', { at: T0, counts: counts(9) }, KEEP);
    await store.appendSample('c2', { at: T0, counts: counts(5) }, KEEP);
    const c1 = await store.samples('c1', T0 - 3600_000);
    // -1200 s is older than KEEP before the newest: dropped by the append at 0
    expect(c1.map((x) => [(x.at - T0) / 1000, x.counts.nodesNotReady])).toEqual([
      [-900, 1],
      [-300, 2],
      [0, 3],
    ]);
    expect(c1[0].counts).toEqual(counts(1));
    expect((await store.samples('c1', T0 - 301_000)).map((x) => x.at)).toEqual([T0 - 300_000, T0]);
    expect((await store.samples('c2', 0)).map((x) => x.counts.nodesNotReady)).toEqual([5]);
  });

  it.skipIf(skip)(
    'keeps everything across a restart',
    async () => {
      await store.close();
      store = await backend.reopen();
      expect(await store.query({ cluster: 'c1', from: at(0), to: at(100) })).toHaveLength(7);
      expect(await store.append(HISTORY)).toBe(0);
      expect(await store.samples('c1', T0 - 3600_000)).toHaveLength(3);
    },
    60_000,
  );

  it.skipIf(skip)('prunes what is past the retention, in bounded batches', async () => {
    const old = Array.from({ length: 30 }, (_, i) =>
      fault(`old-${i}`, -86_400 * 20 - i, 'a1-2', 'partition'),
    );
    expect(await store.append(old)).toBe(30);
    expect(await store.prune(new Date(T0 - 86_400_000 * 14), 10)).toBe(10);
    expect(await pruneOnce(store, 14 * 86_400_000, T0)).toBe(20);
    expect(await store.query({ cluster: 'c1', from: at(-86_400 * 30), to: at(100) })).toHaveLength(7);
  });

  it.skipIf(skip)(
    'appends and queries fast enough for a storm (figures in the output)',
    async () => {
      const many = Array.from({ length: 5000 }, (_, i) =>
        fault(`bulk-${i}`, 100 + i / 10, `n${i % 50}`, 'partition'),
      );
      let t = performance.now();
      for (let i = 0; i < many.length; i += 100) await store.append(many.slice(i, i + 100));
      const appendMs = performance.now() - t;
      t = performance.now();
      const page = await store.query({ cluster: 'c1', from: at(0), to: at(1000), limit: 1000 });
      const queryMs = performance.now() - t;
      t = performance.now();
      await store.replay('c1', at(1000));
      const replayMs = performance.now() - t;
      console.log(
        `${backend.name}: 5000 entries appended in batches of 100 in ${appendMs.toFixed(0)} ms (${((5000 / appendMs) * 1000).toFixed(0)}/s); 1000 newest in ${queryMs.toFixed(0)} ms; replay of 52 nodes in ${replayMs.toFixed(0)} ms`,
      );
      expect(page).toHaveLength(1000);
    },
    120_000,
  );
});

describe.skipIf(pgSkip)('two replicas sharing one PostgreSQL', () => {
  it('record the same facts once, both read them all, and migrate once', async () => {
    server ??= await startPostgres();
    const admin = postgresSql(server.url, () => undefined);
    await admin.query('create database replicas');
    await admin.close();
    const url = server.url.replace(/\/postgres$/, '/replicas');
    // both open together: the migrations run once, under the advisory lock
    const [a, b] = await Promise.all([
      SqlHistoryStore.open(
        postgresSql(url, () => undefined),
        url,
      ),
      SqlHistoryStore.open(
        postgresSql(url, () => undefined),
        url,
      ),
    ]);
    try {
      const added = await Promise.all([a.append(HISTORY), b.append(HISTORY)]);
      expect(added[0] + added[1]).toBe(HISTORY.length);
      const window = { cluster: 'c1', from: at(0), to: at(100) };
      expect(await a.query(window)).toEqual(await b.query(window));
      expect(await b.query(window)).toHaveLength(7);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});

describe('the service', () => {
  it('opens PGlite in the background, and says how long it took', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palisade-history-svc-'));
    try {
      const h = startHistory({
        location: { kind: 'pglite', dir: join(dir, 'history') },
        retentionMs: 86_400_000,
      });
      expect(h.current()).toBeUndefined();
      const store = await h.ready;
      console.log(`PGlite: a new history directory opened (created, migrated) in ${h.openMs} ms`);
      expect(store?.backend).toBe('pglite');
      await h.stop();
      const again = startHistory({
        location: { kind: 'pglite', dir: join(dir, 'history') },
        retentionMs: 86_400_000,
      });
      await again.ready;
      console.log(`PGlite: the same directory reopened in ${again.openMs} ms`);
      // a second process on the same directory would corrupt it: this one goes to a temporary directory
      const second = startHistory({
        location: { kind: 'pglite', dir: join(dir, 'history') },
        retentionMs: 86_400_000,
      });
      expect((await second.ready)?.location).not.toBe(join(dir, 'history'));
      await second.stop();
      await again.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('starts a new directory from the template, and afresh when the template is unusable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palisade-history-tpl-'));
    const history = (name: string) =>
      startHistory({ location: { kind: 'pglite', dir: join(dir, name) }, retentionMs: 86_400_000 });
    // a template of this test's own: it spoils the template, which every other process of a
    // test run (shards, servers) would otherwise be copying from the shared temporary directory
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      const first = history('first');
      await first.ready;
      await first.stop();
      // the first fresh store made the template (a closed, migrated store) before it opened
      expect(existsSync(join(templatePath(), 'PG_VERSION'))).toBe(true);
      const second = history('second');
      const store = await second.ready;
      console.log(`PGlite: a new directory from the template opened in ${second.openMs} ms`);
      expect(await store!.append(HISTORY)).toBe(HISTORY.length);
      await second.stop();
      await writeFile(join(templatePath(), 'PG_VERSION'), 'not a version');
      const third = history('third');
      expect(await (await third.ready)!.append(HISTORY)).toBe(HISTORY.length);
      await third.stop();
      // the unusable template is gone: the next new store makes it again
      expect(existsSync(join(templatePath(), 'PG_VERSION'))).toBe(false);
      expect(templatePath().startsWith(dir)).toBe(true);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('keeps PGlite within its memory bounds: a query past them fails, the store serves on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palisade-history-mem-'));
    // the module's smallest memory is 128 MiB; 32 more is where this test caps it
    await newStoreFromTemplate(join(dir, 'db'));
    const sql = await pgliteSql(join(dir, 'db'), { ...PGLITE_LIMITS, wasmMaxMb: 160 });
    try {
      const store = await SqlHistoryStore.open(sql, dir);
      await store.append(HISTORY);
      // shared_buffers of 8 MB: the store opens and writes within the module's first 128 MiB
      // (PGlite's default of 128 MB grew it to about 190 MiB at once)
      expect((await sql.memory()).wasmBytes).toBeLessThanOrEqual(128 * 1024 * 1024);
      // a 100 MB value needs more than the cap allows: PostgreSQL refuses it, nothing crashes
      await expect(
        sql.query("select length(string_agg(repeat('x', 1000), '')) as n from generate_series(1, 100000)"),
      ).rejects.toThrow(/out of memory/);
      expect((await sql.memory()).wasmBytes).toBeLessThanOrEqual(160 * 1024 * 1024);
      expect(await store.query({ cluster: 'c1', from: at(0), to: at(100) })).toHaveLength(7);
    } finally {
      await sql.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('never logs the PostgreSQL password', () => {
    expect(redactedUrl('postgres://palisade:s3cret@db:5432/h?password=x')).toBe(
      'postgres://palisade:***@db:5432/h?password=***',
    );
  });
});
