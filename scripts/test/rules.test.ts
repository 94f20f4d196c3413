// CONTRIBUTING.md's "Where each rule lives" points at code that exists: every `path:name` in the
// table's second column is a file of the repository that exports that name (a function, a
// const or a class), so a rename or a move fails here until the table follows.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const DOC = 'CONTRIBUTING.md';
const HEADING = '## Where each rule lives';

interface RuleRef {
  question: string;
  file: string;
  name: string;
}

/** The table's rows: each `path/to/file.ts:name` in the second column, with its question. */
function ruleRefs(md: string): RuleRef[] {
  const start = md.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`${DOC} has no "${HEADING}" section`);
  const end = md.indexOf('\n## ', start + 1);
  const rows = md
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .slice(1); // the header
  return rows.flatMap((row) => {
    const [question = '', where = ''] = row.split('|').slice(1, -1);
    const refs = [...where.matchAll(/`([^`\s:]+\.tsx?):([A-Za-z_$][\w$]*)`/g)];
    if (!refs.length) throw new Error(`${DOC}: a row with no \`path:name\`: ${row}`);
    return refs.map((m) => ({ question: question.trim(), file: m[1], name: m[2] }));
  });
}

/** Whether the source exports `name` as a function, a const (or let) or a class. */
function exportsName(src: string, name: string): boolean {
  return new RegExp(
    `^export\\s+(?:async\\s+)?(?:function\\*?|const|let|class|abstract\\s+class)\\s+${name.replace(/\$/g, '\\$')}\\b`,
    'm',
  ).test(src);
}

describe(`"${HEADING}" in ${DOC}`, () => {
  const refs = ruleRefs(readFileSync(join(ROOT, DOC), 'utf8'));

  it('has its rows', () => {
    expect(refs.length).toBeGreaterThanOrEqual(15);
    expect(refs).toContainEqual(expect.objectContaining({ file: 'lib/fencing/machine.ts', name: 'decide' }));
  });

  it('points at files that exist', () => {
    const missing = refs.filter((r) => !existsSync(join(ROOT, r.file)));
    expect(missing.map((r) => `${r.file} (for "${r.question}"): no such file`)).toEqual([]);
  });

  it('names what those files export', () => {
    const absent = refs.filter(
      (r) => existsSync(join(ROOT, r.file)) && !exportsName(readFileSync(join(ROOT, r.file), 'utf8'), r.name),
    );
    expect(
      absent.map((r) => `${r.file}:${r.name} (for "${r.question}"): ${r.file} does not export ${r.name}`),
    ).toEqual([]);
  });
});

describe('reading the table', () => {
  it('finds every reference in a row and tells exports from the rest', () => {
    const md = [
      '# x',
      HEADING,
      '| question | where |',
      '|---|---|',
      '| A? | `lib/a.ts:one`, past it: `lib/b.ts:two` |',
      '## next',
      '| not | `lib/c.ts:three` |',
    ].join('\n');
    expect(ruleRefs(md)).toEqual([
      { question: 'A?', file: 'lib/a.ts', name: 'one' },
      { question: 'A?', file: 'lib/b.ts', name: 'two' },
    ]);
    const src = 'export async function judge() {}\nfunction hidden() {}\nexport const selects = 1;\n';
    expect(exportsName(src, 'judge')).toBe(true);
    expect(exportsName(src, 'selects')).toBe(true);
    expect(exportsName(src, 'hidden')).toBe(false);
    expect(exportsName(src, 'jud')).toBe(false);
  });
});
