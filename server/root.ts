// The application's root (the directory of package.json: the repository, or /app in the image),
// for the files the server reads from it (deploy/crds): found upward from this module, so the
// same from server/ under tsx and from the compiled dist/server/main.js (scripts/build-server.mjs).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function rootAbove(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) throw new Error(`no package.json in ${dir} or above`);
  }
}

/** a path under the application's root */
export const fromRoot = (...parts: string[]) =>
  join(rootAbove(dirname(fileURLToPath(import.meta.url))), ...parts);
