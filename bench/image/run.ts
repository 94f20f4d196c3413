// `npm run bench:image [-- --fresh]`: the container image in one run — builds it with
// `npm run image` (from an empty layer cache with --fresh, else with the cache as it is), reads
// the archive's size and each layer's compressed and unpacked size from its OCI layout, then runs
// `scripts/image/test.ts` (three replicas as the chart runs them: chrooted as uid 65532 on a
// read-only root, the chart's ServiceAccount, against the embedded cluster) and takes how long
// /readyz took. Figures go to bench/image/RESULTS.md, folded
// into bench/RESULTS.md.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchResults, MiB, type Row } from '../report.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const fresh = process.argv.includes('--fresh');
const log = (m: string) => console.log(`[bench:image] ${m}`);

/** Runs a command, echoing its output, and returns what it printed and how long it took. */
function run(cmd: string, args: string[]): Promise<{ out: string; s: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (b: Buffer) => {
      out += b.toString();
      process.stdout.write(b);
    };
    p.stdout.on('data', take);
    p.stderr.on('data', take);
    p.on('error', reject);
    p.on('exit', (code) =>
      code === 0
        ? resolve({ out, s: (performance.now() - t0) / 1000 })
        : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

interface Layer {
  digest: string;
  size: number;
  unpacked: number;
}

/** The archive's layers from its own manifest, each with the size of its tar once decompressed. */
async function layersOf(archive: string): Promise<Layer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-bench-image-'));
  try {
    execFileSync('tar', ['-xf', archive, '-C', dir]);
    const blob = (d: string) => join(dir, 'blobs', ...d.split(':'));
    const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'));
    const manifest = JSON.parse(await readFile(blob(index.manifests[0].digest), 'utf8'));
    return manifest.layers.map((l: { digest: string; size: number }) => ({
      digest: l.digest,
      size: l.size,
      unpacked: Number(
        execFileSync('bash', ['-c', `gzip -dc '${blob(l.digest)}' | wc -c`])
          .toString()
          .trim(),
      ),
    }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const LAYER_NAMES = [
  'base (Debian 12, fence-agents, ipmitool)',
  'node 20',
  'deps (npm ci --omit=dev)',
  'history (the history store template)',
  'app (the compiled server, the UI build, the SBOM)',
];

async function main() {
  const started = Date.now();
  const rows: Row[] = [];
  log(`building${fresh ? ' from an empty layer cache (--fresh)' : ''}`);
  const build = await run('bash', ['scripts/image/build.sh', ...(fresh ? ['--fresh'] : [])]);
  const archive = join(ROOT, 'dist', readdirSync(join(ROOT, 'dist')).find((f) => f.endsWith('.oci.tar'))!);
  const digest = /sha256:[0-9a-f]{64}/.exec(build.out)?.[0] ?? 'unknown';
  rows.push({
    section: 'build',
    metric: fresh ? 'npm run image, empty layer cache' : 'npm run image, layer cache as found',
    value: build.s,
    unit: 's',
    note: 'mmdebstrap + npm + next build + layout, on this machine',
  });
  const archiveBytes = statSync(archive).size;
  rows.push({
    section: 'size',
    metric: 'archive (dist/*.oci.tar)',
    value: archiveBytes / MiB,
    unit: 'MiB',
    target: { op: '<=', value: 250 },
    note: digest,
  });
  const layers = await layersOf(archive);
  for (const [i, l] of layers.entries())
    rows.push({
      section: 'size',
      metric: `layer ${i + 1}: ${LAYER_NAMES[i] ?? l.digest.slice(0, 19)}`,
      value: l.size / MiB,
      unit: 'MiB',
      note: `${(l.unpacked / MiB).toFixed(0)} MiB unpacked`,
    });
  rows.push({
    section: 'size',
    metric: 'unpacked root file system',
    value: layers.reduce((n, l) => n + l.unpacked, 0) / MiB,
    unit: 'MiB',
  });
  log('running the image (scripts/image/test.ts)');
  const test = await run('npx', ['tsx', 'scripts/image/test.ts']);
  const ready = /\/readyz 200 on every replica after ([\d.]+)s/.exec(test.out);
  rows.push({
    section: 'run',
    metric: 'three replicas started to /readyz 200 on all (chart config and ServiceAccount)',
    value: ready ? Number(ready[1]) : Number.NaN,
    unit: 's',
    target: { op: '<=', value: 30 },
    note: 'uid 65532, read-only root, tmpfs /tmp',
  });
  rows.push({
    section: 'run',
    metric: 'whole image test (unpack, checks, run, stop)',
    value: test.s,
    unit: 's',
  });
  const text = benchResults({
    title: 'Container image benchmark',
    command: `npm run bench:image${fresh ? ' -- --fresh' : ''}`,
    durationS: (Date.now() - started) / 1000,
    setup: [
      'the image as `npm run image` builds it (scripts/image/build.sh): four gzip layers in an OCI layout archive, no container daemon',
      'sizes read from the archive’s own manifest; unpacked = each layer’s tar decompressed',
      '`scripts/image/test.ts` applies deploy/manifests/palisade.yaml to the embedded cluster and runs three replicas of the image as the chart’s pods (unshare + chroot as 65532, read-only root, the chart’s ServiceAccount token, its palisade.yaml)',
    ],
    rows,
  });
  await writeFile(RESULTS, `${text}\n`);
  log(`wrote ${RESULTS}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
