// server/main.ts as a process: bad command lines and unreadable kubeconfigs end it at
// once with a message that says what is wrong; and the same compiled (dist/server/main.js).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf } from '../bench/cluster/procfs.js';

const dir = mkdtempSync(join(tmpdir(), 'palisade-main-'));
const badMode = join(dir, 'palisade.yaml');
writeFileSync(badMode, 'clusters:\n  - context: prod\n    mode: readonly\n');

function run(...args: string[]) {
  const r = spawnSync('npx', ['tsx', 'server/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: '' },
    timeout: 30_000,
  });
  return { code: r.status, stderr: r.stderr };
}

describe('server/main.ts', () => {
  it.each([
    [
      ['--kubeconfig', '/nonexistent/kubeconfig'],
      1,
      /cannot read kubeconfig \/nonexistent\/kubeconfig: no such file/,
    ],
    [['--port', 'eighty'], 2, /--port: must be an integer between 0 and 65535, got "eighty"/],
    [['--colour'], 2, /Unknown option '--colour'/],
    // sign-in is always on: the old escape hatch is gone, and says so
    [['--insecure-no-auth'], 2, /--insecure-no-auth is gone: sign-in is always on/],
    [
      ['--config', '/nonexistent/palisade.yaml'],
      1,
      /cannot read config \/nonexistent\/palisade\.yaml: no such file/,
    ],
    [
      ['--config', badMode],
      1,
      /config .*palisade\.yaml: clusters\[0\]\.mode: must be one of normal, read-only, protected/,
    ],
  ])('%o exits %i', (args, code, message) => {
    const r = run(...args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
  });
});

// The image and `npm start` run the server compiled ahead of time (scripts/build-server.mjs):
// built into a directory of its own, it must answer as the sources do, and start the embedded
// cluster from dist/sim/ (the scenarios, CRDs and roles it reads from the checkout).
describe('the compiled server (npm run build:server)', () => {
  mkdirSync('.palisade', { recursive: true });
  const out = mkdtempSync(join('.palisade', 'build-test-'));
  const state = mkdtempSync(join(tmpdir(), 'palisade-main-compiled-'));
  const main = join(out, 'server', 'main.js');
  beforeAll(() => {
    const b = spawnSync(process.execPath, ['scripts/build-server.mjs', '--outdir', out], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(b.stderr).toMatch(/\[build:server\]/);
    expect(b.status).toBe(0);
  }, 150_000);
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  it('is plain JavaScript: no TypeScript, no test code', () => {
    const text = readFileSync(main, 'utf8');
    expect(text).not.toMatch(/from ["']tsx|from ["']vitest|\.test\.ts/);
    expect(readFileSync(`${main}.map`, 'utf8')).not.toMatch(/\.test\.ts|server\/test\//);
  });

  it('refuses a bad command line as the sources do', () => {
    const r = spawnSync(process.execPath, [main, '--port', 'eighty'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toMatch(/--port: must be an integer between 0 and 65535, got "eighty"/);
    expect(r.status).toBe(2);
  });

  /** the compiled console with the tiny embedded cluster; resolves once it printed its URL */
  async function startCompiled() {
    const child = spawn(
      process.execPath,
      [main, '--scenario', 'tiny', '--fence-policy', 'none', '--port', '0', '--state-dir', state],
      { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const url = await eventually(
      () => /Palisade console: (\S+)/.exec(text)?.[1],
      120_000,
      () => text,
    ).catch((e) => {
      child.kill('SIGKILL');
      throw e;
    });
    // the embedded cluster runs in a process of its own, the console's child (sim/child.ts)
    const cluster = childrenOf(child.pid!).find((pid) => cmdline(pid).includes(join(out, 'sim', 'child.js')));
    return { child, url, exited, cluster, output: () => text };
  }

  it('starts the embedded cluster from dist/sim/, in a process of its own, and serves', async () => {
    const c = await startCompiled();
    try {
      expect(c.cluster, c.output()).toBeDefined();
      const res = await fetch(`${c.url}/healthz`);
      expect(res.status).toBe(200);
      c.child.kill('SIGTERM');
      expect(await c.exited, c.output()).toBe(0);
      // stopped with the console
      await eventually(() => (alive(c.cluster!) ? undefined : true), 30_000, c.output);
    } finally {
      c.child.kill('SIGKILL');
      if (c.cluster && alive(c.cluster)) process.kill(c.cluster, 'SIGKILL');
    }
  }, 180_000);

  it('a console killed outright (SIGKILL) leaves no cluster running behind it', async () => {
    const c = await startCompiled();
    try {
      expect(c.cluster, c.output()).toBeDefined();
      c.child.kill('SIGKILL');
      await c.exited;
      await eventually(() => (alive(c.cluster!) ? undefined : true), 30_000, c.output);
    } finally {
      if (c.cluster && alive(c.cluster)) process.kill(c.cluster, 'SIGKILL');
    }
  }, 180_000);
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function eventually<T>(get: () => T | undefined, ms: number, why: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not in ${ms} ms:\n${why().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
