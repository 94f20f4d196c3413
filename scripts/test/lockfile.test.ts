// `npm ci` from the committed lockfile works on Linux and macOS, x64 and arm64: the lock carries
// every platform's native binaries, and npm itself, asked to install for each platform, agrees.
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type Lockfile, lockProblems, PLATFORMS, unpinned } from '../lockfile.js';

const ROOT = join(import.meta.dirname, '../..');
const lock: Lockfile = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

// the packages that ship their native code as one optional package per platform
const NATIVE = [
  '@biomejs/biome',
  'next',
  '@tailwindcss/oxide',
  'lightningcss',
  'esbuild',
  'rolldown',
  'sharp',
];

const without = (l: Lockfile, key: string): Lockfile => {
  const packages = { ...l.packages };
  delete packages[key];
  return { ...l, packages };
};

describe('package-lock.json', () => {
  it('carries every optional dependency and a native binary per platform', () => {
    expect(lockProblems(lock)).toEqual([]);
  });

  it('pins every top-level package exactly as package.json says', () => {
    expect(unpinned(lock, pkg)).toEqual([]);
    expect(lock.packages[''].dependencies).toEqual(pkg.dependencies);
    expect(lock.packages[''].devDependencies).toEqual(pkg.devDependencies);
  });

  it.each(NATIVE)('locks %s with its platform packages', (name) => {
    const entry = lock.packages[`node_modules/${name}`];
    expect(entry, `${name} is not in the lock`).toBeDefined();
    expect(Object.keys(entry.optionalDependencies ?? {}).length).toBeGreaterThan(1);
  });

  it('names the package and the platform when a binary is missing', () => {
    expect(lockProblems(without(lock, 'node_modules/@biomejs/cli-darwin-arm64'))).toEqual([
      {
        package: '@biomejs/biome',
        problem: 'optional dependency @biomejs/cli-darwin-arm64 is not in the lock',
      },
      { package: '@biomejs/biome', problem: 'no native binary for darwin-arm64 in the lock' },
    ]);
    // a musl-only build does not serve Debian
    expect(lockProblems(without(lock, 'node_modules/@next/swc-linux-x64-gnu'))).toContainEqual({
      package: 'next',
      problem: 'no native binary for linux-x64 in the lock',
    });
  });
});

// --os, --cpu and --libc choose the platform npm installs for (npm 11, the project's npm)
const npmMajor = Number(execFileSync('npm', ['--version'], { encoding: 'utf8' }).split('.')[0]);

describe.skipIf(npmMajor < 11)('npm ci --dry-run for each platform', () => {
  const dir = mkdtempSync(join(tmpdir(), 'palisade-lock-'));
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(PLATFORMS)(
    'accepts the lockfile on $os-$cpu and installs its binaries',
    async ({ os, cpu }) => {
      // resolved from the lock alone: about 0.5 s, nothing downloaded
      const libc = os === 'linux' ? ['--libc=glibc'] : [];
      const { stdout } = await promisify(execFile)(
        'npm',
        ['ci', '--dry-run', '--offline', '--no-audit', '--no-fund', `--os=${os}`, `--cpu=${cpu}`, ...libc],
        { cwd: dir, env: { ...process.env, npm_config_loglevel: 'warn' } },
      );
      const added = new Set(stdout.split('\n').map((l) => l.replace(/^add (\S+) .*$/, '$1')));
      for (const bin of [
        `@biomejs/cli-${os}-${cpu}`,
        `@next/swc-${os}-${cpu}${os === 'linux' ? '-gnu' : ''}`,
        `@esbuild/${os}-${cpu}`,
        `@rolldown/binding-${os}-${cpu}${os === 'linux' ? '-gnu' : ''}`,
        `@tailwindcss/oxide-${os}-${cpu}${os === 'linux' ? '-gnu' : ''}`,
        `lightningcss-${os}-${cpu}${os === 'linux' ? '-gnu' : ''}`,
      ])
        expect(added, `npm ci on ${os}-${cpu} does not install ${bin}`).toContain(bin);
    },
    60_000,
  );
});
