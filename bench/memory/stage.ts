// One stage of bench:memory's breakdown: Palisade's console server built up to a point, in a
// process of its own, compiled like dist/server/main.js (run.ts bundles this file with esbuild;
// plain node, --expose-gc), so that each stage's RSS less the one before is what that part costs:
//   modules   every module main.js loads, nothing started
//   console   + startConsole on the cluster: informers and their caches, the controller loops
//             (deletion protection as on the embedded cluster, fencing), tRPC, the socket.io
//             hub; no UI, no history store
//   ui        + the Next.js request handler (the production build), which run.ts then drives
//             with Chromium: every page, then pages kept open (their socket.io sessions)
//   history   + the history store: PGlite in a new directory from the template, as a pod
// Lines on stdin: `mark NAME` (two full GCs, then one MARK line of JSON on stdout), `stop`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import v8 from 'node:v8';
import { type Console, startConsole } from '../../server/console.js';
import { clustersFromKubeconfig } from '../../server/kube/kubeconfig.js';
import { type Mark, STAGES, type Stage } from './marks.js';

const status = (field: string) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};

async function main() {
  const [stage, kubeconfig] = process.argv.slice(2) as [Stage, string];
  if (!STAGES.includes(stage) || !kubeconfig) throw new Error('usage: stage.js STAGE KUBECONFIG');
  const at = STAGES.indexOf(stage);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  let con: Console | undefined;
  const historyDir = mkdtempSync(join(tmpdir(), 'palisade-bench-memory-history-'));
  if (at >= STAGES.indexOf('console')) {
    const clusters = await clustersFromKubeconfig(kubeconfig);
    con = await startConsole({
      clusters,
      port: 0,
      host: '127.0.0.1',
      ui: at >= STAGES.indexOf('ui') ? { dir: process.cwd() } : false,
      // deletion protection with its defaults, as `npm start` runs it on the embedded cluster
      protection: {},
      auth: { signInLink: false },
      history:
        at >= STAGES.indexOf('history')
          ? { location: { kind: 'pglite', dir: join(historyDir, 'db') }, retentionMs: 14 * 86_400_000 }
          : undefined,
    });
    await Promise.all([...con.clusters.values()].map((c) => c.synced()));
    if (con.history) await con.history.ready;
  }
  const mark = (name: string): Mark => {
    gc();
    gc();
    const m = process.memoryUsage();
    const h = v8.getHeapSpaceStatistics();
    const code = h
      .filter((s) => /code|map|read_only/.test(s.space_name))
      .reduce((n, s) => n + s.physical_space_size, 0);
    const objects = con
      ? Object.fromEntries(
          [...con.clusters.values()].flatMap((c) =>
            Object.values(c.informers).map((i) => [`${c.id}/${i.kind}`, i.size]),
          ),
        )
      : undefined;
    return {
      name,
      rss: status('VmRSS'),
      hwm: status('VmHWM'),
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      codeAndMetadata: code,
      objects,
      url: con?.url,
    };
  };
  console.log(`READY ${JSON.stringify({ url: con?.url })}`);
  for await (const line of createInterface({ input: process.stdin })) {
    const [cmd, name] = line.trim().split(/\s+/);
    if (cmd === 'mark') console.log(`MARK ${JSON.stringify(mark(name ?? stage))}`);
    if (cmd === 'stop') break;
  }
  await con?.stop();
  rmSync(historyDir, { recursive: true, force: true });
  process.exit(0);
}

main().catch((e) => {
  console.error(`[bench:memory stage] ${(e as Error).stack ?? e}`);
  process.exit(1);
});
