// The history store's PGlite, in a worker thread of its own (server/history/sql.ts starts it).
// PGlite is PostgreSQL compiled to WebAssembly: every query, and the open and close, run
// synchronously on the thread that owns it. On the main thread that stalled the admission
// webhook and the console for hundreds of milliseconds at a time (a replica behind a balancer
// missed its health checks while a storm of deletions was being recorded). Plain JavaScript, so
// it runs the same under tsx, vitest and the image's node.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const { dir, template } = workerData;
const db = await PGlite.create(
  dir,
  template ? { loadDataDir: new Blob([new Uint8Array(template)]) } : {},
).catch((e) => {
  parentPort.postMessage({ id: 0, error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
parentPort.postMessage({ id: 0, result: 'open' });

async function run(m) {
  switch (m.op) {
    case 'query': {
      const r = await db.query(m.text, m.params ?? []);
      return { rows: r.rows, affected: r.affectedRows ?? 0 };
    }
    case 'dump': {
      const blob = await db.dumpDataDir('gzip');
      return new Uint8Array(await blob.arrayBuffer());
    }
    case 'close':
      await db.close();
      return 'closed';
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

// one message at a time, in order: PGlite has one connection
let chain = Promise.resolve();
parentPort.on('message', (m) => {
  chain = chain.then(async () => {
    try {
      parentPort.postMessage({ id: m.id, result: await run(m) });
    } catch (e) {
      parentPort.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
    }
    if (m.op === 'close') parentPort.close();
  });
});
