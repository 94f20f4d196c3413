// `npm run build:server`: the server compiled ahead of time with esbuild, so that nothing
// transpiles TypeScript at run time (tsx kept every module's source and source map in memory:
// about 125 MiB of the server's RSS, bench/memory). Plain JavaScript, run by plain node.
//
//   dist/server/main.js         server/main.ts and everything it imports from server/ and lib/,
//                               one ES module; npm packages stay imports of node_modules
//   dist/server/pgliteWorker.mjs  the history store's worker (server/history/sql.ts loads it
//                               beside the module that starts it)
//   dist/server/ipmitool-env.sh  fence_ipmilan's ipmitool shim (server/fenceAgents/run.ts)
//   dist/sim/                   the embedded cluster, which main.js imports only when no cluster
//                               is given (`npm start`); the container image leaves it out
//
// Test files are never imported by these entry points: the build fails if one is.
// `--outdir DIR` builds into DIR instead of dist/ (a directory inside the checkout: the code finds
// the application's root, package.json, upward from itself).
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const out = values.outdir ? resolve(values.outdir) : join(root, 'dist');

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // node_modules are loaded as they are, from the image's deps layer or the checkout's
  packages: 'external',
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};

/** the embedded cluster's modules main.ts imports (dynamically, only without a cluster) */
const SIM_ENTRIES = [
  'sim/child.ts',
  'sim/cluster.ts',
  'sim/cells.ts',
  'sim/scenario/load.ts',
  'sim/infra/ipmi/bmcs.ts',
];

async function main() {
  const t0 = performance.now();
  rmSync(join(out, 'server'), { recursive: true, force: true });
  rmSync(join(out, 'sim'), { recursive: true, force: true });
  const server = await build({
    ...common,
    entryPoints: ['server/main.ts'],
    outfile: join(out, 'server/main.js'),
    // dist/server/main.js imports ../sim/*.js: dist/sim/, built next (absent from the image)
    external: ['../sim/*'],
  });
  mkdirSync(join(out, 'server'), { recursive: true });
  copyFileSync(join(root, 'server/history/pgliteWorker.mjs'), join(out, 'server/pgliteWorker.mjs'));
  // fence_ipmilan's ipmitool (server/fenceAgents/run.ts finds it beside the module); cp keeps its mode
  copyFileSync(join(root, 'server/fenceAgents/ipmitool-env.sh'), join(out, 'server/ipmitool-env.sh'));
  const sim = await build({
    ...common,
    entryPoints: SIM_ENTRIES,
    outdir: join(out, 'sim'),
    outbase: 'sim',
    // one instance of each module shared by the entry points (the scenario loader and the cluster)
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
  const inputs = (m) => Object.keys(m.metafile.inputs).filter((f) => !f.includes('node_modules')).length;
  const tests = [server, sim].flatMap((r) =>
    Object.keys(r.metafile.inputs).filter((f) => /\.test\.|\/test\/|harness/.test(f)),
  );
  if (tests.length) throw new Error(`test code in the build: ${tests.join(', ')}`);
  const ms = performance.now() - t0;
  console.error(
    `[build:server] ${relative(root, join(out, 'server/main.js'))} (${inputs(server)} modules) and ${relative(root, join(out, 'sim'))}/ (${inputs(sim)} modules) in ${(ms / 1000).toFixed(1)} s`,
  );
}

main().catch((e) => {
  console.error(`[build:server] failed: ${e.message ?? e}`);
  process.exit(1);
});
