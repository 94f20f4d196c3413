// What makes package-lock.json installable with `npm ci` on every platform we support: npm 11
// resolving on one machine used to record only that machine's native binaries (biome's
// @biomejs/cli-*, next's @next/swc-*, tailwind's @tailwindcss/oxide-*, lightningcss-*, esbuild's
// @esbuild/*, rolldown's bindings, sharp's @img/*), and `npm ci` then refuses the lockfile
// everywhere ("Missing: @biomejs/cli-… from lock file"). scripts/test/lockfile.test.ts runs these
// checks on the committed lockfile.

export const PLATFORMS = [
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
  { os: 'darwin', cpu: 'x64' },
  { os: 'darwin', cpu: 'arm64' },
] as const;

export type Platform = (typeof PLATFORMS)[number];

type Entry = {
  version?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optional?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

export type Lockfile = { lockfileVersion: number; packages: Record<string, Entry> };

/** Where Node would find `name` from the package at `from` (a key of `packages`), or undefined. */
export function resolve(lock: Lockfile, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const key = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (!dir) return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

function matches(list: string[] | undefined, value: string): boolean {
  if (!list) return true;
  if (list.includes(`!${value}`)) return false;
  return list.some((v) => v === value) || list.every((v) => v.startsWith('!'));
}

/** Whether an entry installs on the platform (glibc on Linux, as Debian and macOS users have). */
export function installsOn(e: Entry, p: Platform): boolean {
  return matches(e.os, p.os) && matches(e.cpu, p.cpu) && (p.os !== 'linux' || matches(e.libc, 'glibc'));
}

export type Problem = { package: string; problem: string };

/**
 * Every optional dependency a locked package declares must be in the lock (else `npm ci` refuses
 * it), and every package that ships native binaries as platform-specific optional dependencies
 * must have one for each of the platforms.
 */
export function lockProblems(lock: Lockfile, platforms: readonly Platform[] = PLATFORMS): Problem[] {
  const problems: Problem[] = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    const optional = Object.keys(entry.optionalDependencies ?? {});
    if (!optional.length) continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length) || '(root)';
    const resolved: Entry[] = [];
    for (const dep of optional) {
      const at = resolve(lock, key, dep);
      if (!at) problems.push({ package: name, problem: `optional dependency ${dep} is not in the lock` });
      else resolved.push(lock.packages[at]);
    }
    const platformSpecific = resolved.filter((e) => e.os || e.cpu);
    // a family of native binaries, one per platform; fsevents alone (vite's) is not one
    if (optional.length < 2 || !platformSpecific.length) continue;
    for (const p of platforms)
      if (!platformSpecific.some((e) => installsOn(e, p)))
        problems.push({ package: name, problem: `no native binary for ${p.os}-${p.cpu} in the lock` });
  }
  return problems;
}

/** Top-level packages whose locked version is not exactly what package.json pins. */
export function unpinned(
  lock: Lockfile,
  pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> },
): string[] {
  const out: string[] = [];
  for (const [name, want] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    const got = lock.packages[`node_modules/${name}`]?.version;
    if (got !== want) out.push(`${name}: package.json ${want}, lock ${got ?? 'missing'}`);
  }
  return out;
}
