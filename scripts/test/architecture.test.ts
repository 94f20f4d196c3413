// docs/architecture.md keeps up with the tree: its Layout names every top-level folder git tracks
// and every folder directly under lib/, server/ and sim/, and its controller runtime section
// names every loop the code makes (`new Controller({ name: ... })` under server/ or sim/).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const DOC = 'docs/architecture.md';
const doc = readFileSync(join(ROOT, DOC), 'utf8');

/** The text of a `## heading` section, up to the next heading of that level. */
function section(md: string, heading: string): string {
  const start = md.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${DOC} has no "## ${heading}" section`);
  const end = md.indexOf('\n## ', start + 1);
  return md.slice(start, end < 0 ? undefined : end);
}

/** Every file git tracks (tests run in a checkout). */
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);

/** The folders directly under `parent` ('' for the root) that hold a tracked file. */
function foldersUnder(parent: string): string[] {
  const prefix = parent ? `${parent}/` : '';
  const names = new Set<string>();
  for (const f of tracked) {
    if (!f.startsWith(prefix)) continue;
    const parts = f.slice(prefix.length).split('/');
    if (parts.length > 1 && !parts[0].startsWith('.') && parts[0] !== 'node_modules') names.add(parts[0]);
  }
  return [...names].sort();
}

interface LoopName {
  /** where it is made */
  file: string;
  /** the name as written: a string, or a template literal's text (`aggregator:${o.cellId}`) */
  name: string;
}

/** The names given to a loop (`new Loop(...)`, `manager.controller(...)`, `new Controller(...)`). */
function loopNames(file: string, src: string): LoopName[] {
  const out: LoopName[] = [];
  for (const m of src.matchAll(/(?:new (?:Controller|Loop)|\.controller)(?:<[^>]*>)?\(\s*\{/g)) {
    const rest = src.slice(m.index + m[0].length);
    const name = /\bname:\s*(?:'([^']*)'|"([^"]*)"|`([^`]*)`)/.exec(rest);
    if (!name) throw new Error(`${file}: a loop without a literal name`);
    out.push({ file, name: name[1] ?? name[2] ?? name[3] });
  }
  return out;
}

/**
 * How the doc must show a loop's name: in backticks, each `${...}` of a template literal standing
 * for one placeholder such as <cell>.
 */
function namePattern(name: string): RegExp {
  const parts = name.split(/\$\{[^}]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`\`${parts.join('[^`\\s]+')}\``);
}

const shown = (name: string) => name.replace(/\$\{[^}]*\}/g, '<…>');

/** Every loop made in server/ and sim/, tests aside. */
function loops(): LoopName[] {
  return (
    tracked
      .filter((f) => /^(server|sim)\//.test(f) && f.endsWith('.ts'))
      .filter((f) => !f.endsWith('.test.ts') && !f.split('/').includes('test'))
      // the runtime itself: its builder makes a Controller named by the spec it is given
      .filter((f) => !f.startsWith('server/runtime/'))
      .flatMap((f) => loopNames(f, readFileSync(join(ROOT, f), 'utf8')))
  );
}

describe(`the map in ${DOC}`, () => {
  const layout = section(doc, 'Layout');

  it('names every top-level folder', () => {
    const folders = foldersUnder('');
    expect(folders).toEqual(expect.arrayContaining(['app', 'lib', 'server', 'sim']));
    const missing = folders.filter((d) => !layout.includes(`\`${d}/\``));
    expect(
      missing.map((d) => `\`${d}/\`: add a line for it under "### Top-level folders" in ${DOC}`),
    ).toEqual([]);
  });

  it.each(['lib', 'server', 'sim'])('names every folder of %s/', (parent) => {
    const folders = foldersUnder(parent);
    expect(folders.length).toBeGreaterThan(5);
    const missing = folders.filter((d) => !layout.includes(`\`${parent}/${d}/\``));
    expect(
      missing.map((d) => `\`${parent}/${d}/\`: add a line for it under "### \`${parent}/\`" in ${DOC}`),
    ).toEqual([]);
  });

  it('names every loop of the controller runtime', () => {
    const found = loops();
    // the nine of today; a regex that finds none must not pass for a complete map
    expect(found.map((l) => l.name)).toEqual(expect.arrayContaining(['fencing', 'generator']));
    expect(found.length).toBeGreaterThanOrEqual(9);
    const runtime = section(doc, 'The controller runtime');
    const missing = found.filter((l) => !namePattern(l.name).test(runtime));
    expect(
      missing.map(
        (l) =>
          `\`${shown(l.name)}\` (${l.file}): add a row for it to the table under "### The loops" in ${DOC}`,
      ),
    ).toEqual([]);
  });
});

/**
 * `manager.add(…)` (any manager), an `.add(` of something's loop, or the builder's
 * `.controller({…})`, which adds what it builds: a loop joining a manager.
 */
const ADDS_A_LOOP = /\bmanagers?\b[^;\n]*\.add\(|\.add\(\s*[\w.?!]*\bloop\b|\.controller(?:<[^>]*>)?\(\s*\{/;

describe('adding the loops', () => {
  it('happens in server/loops.ts only (one place, like a controller-runtime main)', () => {
    const adders = tracked
      .filter((f) => /^(server|sim)\//.test(f) && f.endsWith('.ts'))
      .filter((f) => !f.endsWith('.test.ts') && !f.split('/').includes('test'))
      // the runtime itself: Manager.add and the Term that runs what was added
      .filter((f) => !f.startsWith('server/runtime/'))
      .filter((f) => ADDS_A_LOOP.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(adders).toEqual(['server/loops.ts']);
  });

  it('finds an add, however the manager is reached', () => {
    for (const src of [
      'manager.add(c.loop);',
      'runtime.manager(conn.spec).add(loop);',
      'managers.get(id)?.add(p.loop);',
      'o.manager.add(controller.loop);',
      "runtime.manager(conn.spec).controller({ name: 'x', key: nameKey });",
    ])
      expect(ADDS_A_LOOP.test(src), src).toBe(true);
    for (const src of ['seen.add(key);', 'this.listeners.add(cb);', 'loops.push(...loopsOn(x));'])
      expect(ADDS_A_LOOP.test(src), src).toBe(false);
  });
});

describe('finding the loops', () => {
  it('reads string and template-literal names, with or without a type argument', () => {
    const src = [
      "this.a = new Controller<'x'>({ name: 'fencing', reconciler });",
      'this.b = new Controller({\n  name: `aggregator:${o.cellId}`,\n});',
    ].join('\n');
    expect(loopNames('f.ts', src).map((l) => l.name)).toEqual(['fencing', 'aggregator:${o.cellId}']);
  });

  it('matches a template literal’s placeholder in the doc', () => {
    expect(namePattern('aggregator:${o.cellId}').test('| `aggregator:<cell>` |')).toBe(true);
    expect(namePattern('aggregator:${o.cellId}').test('| `aggregator:` |')).toBe(false);
    expect(namePattern('fencing').test('the fencing controller')).toBe(false);
    expect(namePattern('fencing').test('| `fencing` |')).toBe(true);
  });

  it('leaves out dot-folders', () => {
    expect(tracked.some((f) => f.startsWith('.ci/'))).toBe(true);
    expect(foldersUnder('')).not.toContain('.ci');
  });
});

describe('type checking', () => {
  it('covers every folder that holds TypeScript (tsc --noEmit reads only what tsconfig includes)', () => {
    // deploy/test was left out, and a renamed property reached CI as a TypeError there
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    const included = new Set(tsconfig.include);
    const tops = new Set(
      tracked
        .filter((f) => /\.tsx?$/.test(f) && f.includes('/') && !f.startsWith('.'))
        .map((f) => f.split('/')[0]),
    );
    expect([...tops].filter((t) => !included.has(t)).sort()).toEqual([]);
  });
});
