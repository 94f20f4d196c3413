// lib/ and server/ import in one direction: lib/ (Palisade's rules) imports nothing of server/,
// sim/ or the browser side, and no file reaches itself again through its relative imports (type-only imports included: a type cycle is a seam in the wrong place, as the router
// file that held the volume rows the incident view imported). Found with Tarjan's strongly
// connected components over the graph read from the source text.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The files of `known` that `file`'s relative imports and re-exports name. */
function importsOf(file: string, src: string, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(IMPORT)) {
    const base = normalize(join(dirname(file), m[1])).replace(/\.js$/, '');
    const hit = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => known.has(c));
    if (hit) out.push(hit);
  }
  return out;
}

/** The cycles of a graph: its strongly connected components of more than one file, or a self-import. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || graph.get(v)?.includes(v)) out.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The import graph of a folder's source files, tests aside. */
function graphOf(folder: string): Map<string, string[]> {
  const files = sources(folder);
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, readFileSync(join(ROOT, f), 'utf8'), known)]));
}

/** Every tracked source file, tests aside. */
function sources(folder?: string): string[] {
  const args = ['ls-files', '-z', ...(folder ? [folder] : [])];
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.split('/').includes('test'));
}

describe('the import graph', () => {
  it('of lib/ stays inside lib/: its rules need nothing of server/, sim/ or the browser', () => {
    const known = new Set(sources());
    const lib = [...known].filter((f) => f.startsWith('lib/'));
    expect(lib.length).toBeGreaterThan(100);
    const outside = lib.flatMap((f) =>
      importsOf(f, readFileSync(join(ROOT, f), 'utf8'), known)
        .filter((t) => !t.startsWith('lib/'))
        .map((t) => `${f} imports ${t}`),
    );
    expect(outside).toEqual([]);
  });

  it.each(['lib', 'server'])('of %s/ has no cycle', (folder) => {
    const graph = graphOf(folder);
    expect(graph.size).toBeGreaterThan(50);
    expect(cyclesOf(graph).map((c) => c.join(' → '))).toEqual([]);
  });
});

describe('reading imports and finding cycles', () => {
  const known = new Set(['server/a.ts', 'server/b/index.ts', 'server/c.tsx', 'lib/d.ts']);

  it.each([
    ["import { x } from './c.js';", ['server/c.tsx']],
    ["import type { X } from './b';", ['server/b/index.ts']],
    ["export type { X } from '../lib/d.js';", ['lib/d.ts']],
    ["export * from './c.js';", ['server/c.tsx']],
    ["import './c.js';", ['server/c.tsx']],
    ["import {\n  a,\n  type B,\n} from './c.js';", ['server/c.tsx']],
    ["import { z } from 'zod';", []],
    ['const s = "from \'./c.js\'";', []],
  ])('%s', (src, expected) => {
    expect(importsOf('server/x.ts', src, known)).toEqual(expected);
  });

  it.each([
    [{ a: ['b'], b: ['c'], c: [] }, []],
    [{ a: ['b'], b: ['a'], c: ['a'] }, [['a', 'b']]],
    [{ a: ['a'] }, [['a']]],
    [
      { a: ['b'], b: ['c'], c: ['a'], d: ['e'], e: ['d'] },
      [
        ['a', 'b', 'c'],
        ['d', 'e'],
      ],
    ],
  ])('cycles of %j', (g, expected) => {
    expect(cyclesOf(new Map(Object.entries(g)))).toEqual(expected);
  });
});
