// The history store in the console's process: opened in the background (PGlite's first open
// creates a database, seconds on a busy machine; /readyz does not wait for it), kept within
// its retention by a bounded prune every few minutes, closed at stop. Until it is open the
// recorder keeps what it sees in memory and the timeline waits for it.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { retentionCutoff } from '../../lib/history/retention.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { pgliteSql, postgresSql, redactedUrl } from './sql.js';
import { type HistoryStore, SqlHistoryStore } from './store.js';

export type HistoryLocation =
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite'; dir: string }
  /** no state directory: a temporary directory, deleted at stop (the history is lost) */
  | { kind: 'temporary' };

export interface HistoryOptions {
  location: HistoryLocation;
  retentionMs: number;
  /** how often retention runs (default 10 minutes) */
  pruneEveryMs?: number;
  /** open only after this settles (the console's first lists: opening competes with them for CPU) */
  after?: Promise<unknown>;
  logger?: Logger;
}

export interface HistoryService {
  /** the store once open; undefined if it could not be opened (the reason is logged) */
  ready: Promise<HistoryStore | undefined>;
  /** the store if already open */
  current(): HistoryStore | undefined;
  /** ms the open took (for the log and the benchmarks), once open */
  openMs?: number;
  stop(): Promise<void>;
}

/** per run of retention: at most this many rows go, in batches */
export const PRUNE_BATCH = 5000;
export const PRUNE_BATCHES_PER_RUN = 10;

/** Deletes what is older than the retention, at most PRUNE_BATCH × PRUNE_BATCHES_PER_RUN rows. */
export async function pruneOnce(store: HistoryStore, retentionMs: number, now = Date.now()): Promise<number> {
  const before = retentionCutoff(now, retentionMs);
  let total = 0;
  for (let i = 0; i < PRUNE_BATCHES_PER_RUN; i++) {
    const n = await store.prune(before, PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) break;
  }
  return total;
}

class DirectoryLocked extends Error {}

/** directories this process has open */
const openHere = new Set<string>();

/** One opener per PGlite directory: a second one (process or store) would corrupt it. */
async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const lock = `${dir}.lock`;
  if (openHere.has(lock)) throw new DirectoryLocked(`${dir} is already open in this process`);
  await mkdir(dirname(lock), { recursive: true });
  try {
    await writeFile(lock, String(process.pid), { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const pid = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
    if (pid && pid !== process.pid && alive(pid))
      throw new DirectoryLocked(`${dir} is in use by process ${pid}`);
    await writeFile(lock, String(process.pid));
  }
  openHere.add(lock);
  return async () => {
    openHere.delete(lock);
    await unlink(lock).catch(() => undefined);
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite's version, which a template's files must match */
function pgliteVersion(): string {
  try {
    const main = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const pkg = join(dirname(main), '..', 'package.json');
    return JSON.parse(readFileSync(pkg, 'utf8')).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * A fresh, migrated store's directory, kept in the temporary directory: a new PGlite directory is
 * a copy of it instead of an initdb (measured: 1.7 s instead of 11 s on a busy 2-core machine),
 * which matters where every process opens a new one (test replicas, pods without PostgreSQL).
 * A copy, not PGlite's own loadDataDir: that untars through PGlite's JavaScript and kept about
 * 100 MiB more of the process's memory (bench/memory).
 */
export const templatePath = () =>
  join(tmpdir(), `palisade-history-template-m${MIGRATIONS.at(-1)?.version}-pglite${pgliteVersion()}`);

/**
 * A template made ahead of time (the container image's, made when it is built: a pod never runs
 * initdb, whose peak is 500-600 MiB); read only, used when its PostgreSQL files are there.
 */
export const SHIPPED_TEMPLATE_ENV = 'PALISADE_HISTORY_TEMPLATE';

const hasDatabase = (dir: string) => existsSync(join(dir, 'PG_VERSION'));

/**
 * Makes a fresh, migrated, closed store in `dir` (initdb). In a PGlite worker of its own, stopped
 * before the store opens for good: initdb's memory (a second PostgreSQL and initdb.wasm) goes
 * with it instead of staying in the process.
 */
export async function createStore(dir: string): Promise<void> {
  const sql = await pgliteSql(dir);
  try {
    await migrate(sql);
  } finally {
    await sql.close();
  }
}

/** The template to copy, making the temporary directory's when there is none yet. */
async function template(log: Logger): Promise<string> {
  const shipped = process.env[SHIPPED_TEMPLATE_ENV];
  if (shipped && hasDatabase(shipped)) return shipped;
  const tpl = templatePath();
  if (hasDatabase(tpl)) return tpl;
  // made whole, then renamed: a reader never sees half a template
  const part = `${tpl}.${process.pid}.part`;
  await rm(part, { recursive: true, force: true });
  log.info({ template: tpl }, 'history: no template yet: creating one (initdb, once per machine)');
  await createStore(part);
  // PGlite makes its files writable by all: the directory keeps other users out of them
  await chmod(part, 0o700);
  // a leftover without a database is moved aside, never a template another process may be
  // copying (a test run's shards and servers share the temporary directory)
  if (existsSync(tpl) && !hasDatabase(tpl)) await discard(tpl);
  await rename(part, tpl).catch(async (e) => {
    // another process made it meanwhile: theirs stands
    await rm(part, { recursive: true, force: true });
    if (!hasDatabase(tpl)) throw e;
  });
  return tpl;
}

/** Renamed first (one step, so no reader sees it half gone under its name), then removed. */
async function discard(dir: string) {
  const aside = `${dir}.${process.pid}.${Date.now()}.discarded`;
  if (
    await rename(dir, aside).then(
      () => true,
      () => false,
    )
  )
    await rm(aside, { recursive: true, force: true });
}

/** A new store in `dir`: a copy of the template; returns the template's path. */
export async function newStoreFromTemplate(dir: string, log: Logger = rootLogger): Promise<string> {
  const tpl = await template(log);
  await rm(dir, { recursive: true, force: true });
  await cp(tpl, dir, { recursive: true });
  return tpl;
}

/** A new store in `dir`, from the template when there is one or it can be made, else in place. */
async function newStore(dir: string, log: Logger): Promise<string | undefined> {
  try {
    return await newStoreFromTemplate(dir, log);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'history: no template: creating the store in place');
    await rm(dir, { recursive: true, force: true });
    await createStore(dir);
    return undefined;
  }
}

async function openPglite(dir: string, log: Logger) {
  const unlock = await lockDirectory(dir);
  try {
    const tpl = hasDatabase(dir) ? undefined : await newStore(dir, log);
    const sql = await pgliteSql(dir).catch(async (e) => {
      if (!tpl) throw e;
      // a template this PGlite cannot read: start the directory afresh without it
      log.warn(
        { err: (e as Error).message, template: tpl },
        'history: template unusable, creating the store afresh',
      );
      await rm(dir, { recursive: true, force: true });
      if (tpl === templatePath()) await discard(tpl);
      await createStore(dir);
      return pgliteSql(dir);
    });
    const store = await SqlHistoryStore.open(sql, dir);
    return { store, cleanup: unlock };
  } catch (e) {
    await unlock();
    throw e;
  } finally {
    log.debug({ dir }, 'PGlite directory opened');
  }
}

async function open(location: HistoryLocation, log: Logger) {
  if (location.kind === 'postgres') {
    const sql = postgresSql(location.url, (err) =>
      log.warn({ err: err.message }, 'history: PostgreSQL connection lost'),
    );
    try {
      return {
        store: await SqlHistoryStore.open(sql, redactedUrl(location.url)),
        cleanup: async () => undefined,
      };
    } catch (e) {
      await sql.close().catch(() => undefined);
      throw e;
    }
  }
  if (location.kind === 'pglite') {
    try {
      return await openPglite(location.dir, log);
    } catch (e) {
      if (!(e instanceof DirectoryLocked)) throw e;
      log.warn(
        { reason: e.message },
        'history: the directory is in use: this process keeps its history in a temporary directory, lost at exit',
      );
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'palisade-history-'));
  const { store } = await openPglite(join(dir, 'db'), log);
  return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function startHistory(opts: HistoryOptions): HistoryService {
  const log = component('history', {}, opts.logger ?? rootLogger);
  let started = Date.now();
  let store: HistoryStore | undefined;
  let cleanup: () => Promise<void> = async () => undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const service: HistoryService = {
    current: () => store,
    ready: (opts.after ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        // the open's own time, not the wait before it
        started = Date.now();
        return stopped ? Promise.reject(new Error('stopped before it opened')) : open(opts.location, log);
      })
      .then(
        async (o) => {
          if (stopped) {
            await o.store.close();
            await o.cleanup();
            return undefined;
          }
          store = o.store;
          cleanup = o.cleanup;
          service.openMs = Date.now() - started;
          log.info(
            {
              backend: store.backend,
              location: store.location,
              openMs: service.openMs,
              retentionMs: opts.retentionMs,
            },
            opts.location.kind === 'temporary'
              ? 'history store open in a temporary directory: it is deleted at exit (give --state-dir or storage.postgres.url to keep it)'
              : 'history store open',
          );
          const prune = () =>
            pruneOnce(o.store, opts.retentionMs)
              .then((n) => n && log.info({ deleted: n }, 'history: entries past the retention deleted'))
              .catch((e) =>
                log.warn({ err: (e as Error).message }, 'history: retention failed (next run retries)'),
              );
          void prune();
          timer = setInterval(prune, opts.pruneEveryMs ?? 600_000);
          timer.unref();
          return o.store;
        },
        (e) => {
          if (stopped) return undefined;
          const where =
            opts.location.kind === 'postgres' ? redactedUrl(opts.location.url) : opts.location.kind;
          // the message of pg's errors never carries the password; the URL is redacted above
          log.error(
            { where, err: (e as Error).message },
            'history store could not be opened: the timeline and audit read the cluster’s Events only',
          );
          return undefined;
        },
      ),
    async stop() {
      stopped = true;
      // still opening: the open closes what it opened when it sees stopped
      await service.ready;
      clearInterval(timer);
      const s = store;
      store = undefined;
      if (!s) return;
      await s.close().catch(() => undefined);
      await cleanup();
    },
  };
  return service;
}
