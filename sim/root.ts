// The repository's root (the directory of package.json), for the files the embedded cluster
// reads from it (scenarios, CRDs, Palisade's roles, testenv/build.sh): found upward from this
// module, so the same from sim/ under tsx and from the compiled dist/sim/ (scripts/build-server.mjs),
// whose chunks sit at another depth.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function rootAbove(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) throw new Error(`no package.json in ${dir} or above`);
  }
}

export const REPO_ROOT = rootAbove(dirname(fileURLToPath(import.meta.url)));

/** a path under the repository's root */
export const fromRoot = (...parts: string[]) => join(REPO_ROOT, ...parts);
