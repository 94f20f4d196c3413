// The two back ends of the history store behind one small interface: PGlite (PostgreSQL compiled
// to WASM, in this process, files in a directory) and a PostgreSQL server through `pg`. The
// store's SQL is the same on both; so are the migrations.
import { Worker } from 'node:worker_threads';
import pg from 'pg';

export interface QueryResult<R> {
  rows: R[];
  affected: number;
}

export type Query = <R = Record<string, unknown>>(
  text: string,
  params?: unknown[],
) => Promise<QueryResult<R>>;

export interface Sql {
  backend: 'pglite' | 'postgres';
  query: Query;
  /** `fn` on one connection inside a transaction under a session advisory lock (migrations) */
  exclusive<T>(lockKey: number, fn: (q: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * What the PGlite worker may use (measured in bench/memory; docs/operations.md#memory): its
 * PostgreSQL's shared_buffers, the most its WebAssembly memory may grow to (PostgreSQL answers
 * "out of memory" to a query that needs more) and its JavaScript heap (results in transit; past
 * it the worker stops and the store reports itself gone, the server runs on).
 */
export interface PgliteLimits {
  sharedBuffersMb: number;
  wasmMaxMb: number;
  heapMb: number;
}

export const PGLITE_LIMITS: PgliteLimits = { sharedBuffersMb: 8, wasmMaxMb: 192, heapMb: 64 };

/**
 * PGlite in `dir`, in a worker thread (pgliteWorker.mjs: its WebAssembly runs synchronously, and
 * on the main thread it stalled the webhook), within `limits`. A new directory gets an initdb.
 */
export async function pgliteSql(dir: string, limits: PgliteLimits = PGLITE_LIMITS): Promise<PgliteSql> {
  const worker = new Worker(new URL('./pgliteWorker.mjs', import.meta.url), {
    workerData: { dir, limits },
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 8 },
  });
  // the console's stop closes it; a process that never does must still be able to exit
  worker.unref();
  const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  let seq = 0;
  let dead: Error | undefined;
  const opened = new Promise<void>((ok, fail) => pending.set(0, { ok: () => ok(), fail }));
  const failAll = (e: Error) => {
    dead ??= e;
    for (const p of pending.values()) p.fail(e);
    pending.clear();
  };
  worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.fail(new Error(m.error));
    else p?.ok(m.result);
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the PGlite worker exited (${code})`)));
  const call = <T>(m: Record<string, unknown>) =>
    new Promise<T>((ok, fail) => {
      if (dead) return fail(dead);
      const id = ++seq;
      pending.set(id, { ok: ok as (v: unknown) => void, fail });
      worker.postMessage({ ...m, id });
    });
  await opened;
  const query: Query = (text, params) => call({ op: 'query', text, params });
  return {
    backend: 'pglite',
    query,
    // one connection, one process (the directory lock keeps it so): a transaction suffices. The
    // store runs this only while it opens (migrations), before anything else queries
    async exclusive(_key, fn) {
      await query('begin');
      try {
        const out = await fn(query);
        await query('commit');
        return out;
      } catch (e) {
        await query('rollback').catch(() => undefined);
        throw e;
      }
    },
    async close() {
      if (dead) return;
      await call({ op: 'close' }).catch(() => undefined);
      await worker.terminate();
    },
    memory: () => call<PgliteMemory>({ op: 'memory' }),
  };
}

/** the worker's WebAssembly memory (its current size) and JavaScript heap in use, bytes */
export interface PgliteMemory {
  wasmBytes: number;
  heap: number;
}

export type PgliteSql = Sql & { memory(): Promise<PgliteMemory> };

export function postgresSql(url: string, onError: (e: Error) => void): Sql {
  const pool = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 30_000 });
  // an idle connection the server dropped: logged, the pool opens another on the next query
  pool.on('error', onError);
  const wrap =
    (c: pg.Pool | pg.PoolClient): Query =>
    async (text, params) => {
      const r = await c.query(text, params as unknown[]);
      return { rows: r.rows as never[], affected: r.rowCount ?? 0 };
    };
  return {
    backend: 'postgres',
    query: wrap(pool),
    async exclusive(key, fn) {
      const c = await pool.connect();
      try {
        // replicas starting together migrate one after the other
        await c.query('select pg_advisory_lock($1)', [key]);
        await c.query('begin');
        try {
          const out = await fn(wrap(c));
          await c.query('commit');
          return out;
        } catch (e) {
          await c.query('rollback').catch(() => undefined);
          throw e;
        } finally {
          await c.query('select pg_advisory_unlock($1)', [key]).catch(() => undefined);
        }
      } finally {
        c.release();
      }
    },
    close: () => pool.end(),
  };
}

/** The URL with its password replaced, for logs and errors (the password is never logged). */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    return '(an unparsable URL)';
  }
}
