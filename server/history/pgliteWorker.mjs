// The history store's PGlite, in a worker thread of its own (server/history/sql.ts starts it).
// PGlite is PostgreSQL compiled to WebAssembly: every query, and the open and close, run
// synchronously on the thread that owns it. On the main thread that stalled the admission
// webhook and the console for hundreds of milliseconds at a time (a replica behind a balancer
// missed its health checks while a storm of deletions was being recorded). Plain JavaScript, so
// it runs the same under tsx, vitest and the image's node.
//
// Its memory is bounded here (measured: bench/memory, docs/operations.md#memory). PGlite's own
// defaults cost about 280 MiB of RSS on open: PostgreSQL's shared_buffers of 128 MB (touched
// whole at start) and V8's optimizing compile of the 9 MB pglite.wasm. With shared_buffers at
// `sharedBuffersMb` and the module compiled by V8's baseline compiler only, the open costs
// about 80 MiB; the WebAssembly memory may not grow past `wasmMaxMb` (PostgreSQL then answers
// "out of memory" to the query that asked for more, and the store keeps serving).
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';

const { dir, limits } = workerData;

// Liftoff only: the optimizing tier compiles the whole module again in the background, 35-55
// MiB more for code the store's small queries do not need. V8 flags are per process: this one
// only concerns WebAssembly, which only this worker runs.
v8.setFlagsFromString('--liftoff-only');

// PGlite makes its WebAssembly.Memory with a 2 GiB maximum and no option to lower it: in this
// thread (its globals are its own) the constructor caps the maximum.
const NativeMemory = WebAssembly.Memory;
const maxPages = Math.floor((limits.wasmMaxMb * 1024 * 1024) / 65536);
WebAssembly.Memory = class CappedMemory extends NativeMemory {
  constructor(desc) {
    super({ ...desc, maximum: Math.max(desc.initial, Math.min(desc.maximum ?? maxPages, maxPages)) });
  }
};

const { PGlite } = await import('@electric-sql/pglite');
const db = await PGlite.create(dir, {
  startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${limits.sharedBuffersMb}MB`],
}).catch((e) => {
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
    case 'memory':
      return { wasmBytes: db.mod?.HEAPU8?.length ?? 0, heap: v8.getHeapStatistics().used_heap_size };
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
