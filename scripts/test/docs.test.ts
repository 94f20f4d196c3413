// The docs hold together: every relative link and image in README.md, CONTRIBUTING.md and
// docs/*.md leads to a file that exists (and to a heading that exists), every screenshot in docs/
// is shown somewhere, the README keeps its two commands, and the configuration reference in
// docs/configuration.md is the one the schema generates today.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentsOf, DOC_FILE, renderReference, withReference } from '../config-reference.js';
import { anchorsOf, brokenLinks, docFiles, linksOf, slug } from '../doclinks.js';

const ROOT = join(import.meta.dirname, '../..');

describe('links in the docs', () => {
  const files = docFiles(ROOT);

  it('covers the README, CONTRIBUTING.md and every page in docs/', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('CONTRIBUTING.md');
    expect(files).toContain('docs/configuration.md');
    expect(files).toContain('docs/operations.md');
  });

  it('lead to files and headings that exist', () => {
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it('show every screenshot in docs/', () => {
    const shown = new Set(
      files.flatMap((f) =>
        linksOf(readFileSync(join(ROOT, f), 'utf8')).map((l) => l.target.replace(/^(\.\.\/)?(docs\/)?/, '')),
      ),
    );
    const images = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.png'));
    expect(images.filter((i) => !shown.has(i))).toEqual([]);
  });

  it('keeps the README’s two commands exactly', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(
      [
        '```bash',
        'npm start      # the console on the embedded demo cluster; prints the URL (http://127.0.0.1:3000)',
        'npm test       # the whole test suite: types, lint, unit, integration (embedded and real control plane), kubectl, Playwright e2e, demo flows',
        '```',
      ].join('\n'),
    );
  });
});

describe('the metrics reference in docs/operations.md', () => {
  it('lists every metric the server defines, and no other', () => {
    // every prom-client metric named in the server's code (tests aside)
    const sources = readdirSync(join(ROOT, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.split('/').includes('test'))
      .map((f) => readFileSync(join(ROOT, 'server', f), 'utf8'));
    const defined = sources.flatMap((src) =>
      [...src.matchAll(/name: '(palisade_[a-z_]+)'/g)].map((m) => m[1]),
    );
    expect(defined.length).toBeGreaterThan(15);
    const ops = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const table = ops.slice(ops.indexOf('## Metrics'), ops.indexOf('## Alerts'));
    const listed = [...table.matchAll(/^\| `(palisade_[a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...defined].sort());
  });
});

describe('the link checker', () => {
  it('makes GitHub’s anchors', () => {
    expect(slug('Configuration: `palisade.yaml` and cluster modes')).toBe(
      'configuration-palisadeyaml-and-cluster-modes',
    );
    expect(slug('Core + 2 worker cells')).toBe('core--2-worker-cells');
    expect(slug("Palisade's side: palisade.yaml")).toBe('palisades-side-palisadeyaml');
    expect([...anchorsOf('# A\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
  });

  it('finds links and images outside code only', () => {
    const md = [
      'see [the guide](docs/a.md#b) and ![a map](docs/map.png "title")',
      '`[not](a-link.md)` and [web](https://example.com)',
      '```',
      '[inside](code.md)',
      '```',
      '<img src="docs/x.png"> [ref]: docs/y.md',
    ].join('\n');
    expect(linksOf(md).map((l) => l.target)).toEqual(['docs/a.md#b', 'docs/map.png', 'docs/x.png']);
  });

  it('names a missing file, a missing heading and a pending file', () => {
    const root = mkdtempSync(join(tmpdir(), 'palisade-docs-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs/a.md'), '# Title\n\n## Part `one`\n');
      writeFileSync(
        join(root, 'README.md'),
        '[ok](docs/a.md#part-one) [gone](docs/b.md) [no heading](docs/a.md#part-two) [later](docs/c.md) ![pic](docs/p.png)\n',
      );
      expect(brokenLinks(root, ['README.md'], ['docs/c.md'])).toEqual([
        { file: 'README.md', line: 1, target: 'docs/b.md', problem: 'docs/b.md does not exist' },
        {
          file: 'README.md',
          line: 1,
          target: 'docs/a.md#part-two',
          problem: 'docs/a.md has no heading #part-two',
        },
        { file: 'README.md', line: 1, target: 'docs/p.png', problem: 'docs/p.png does not exist' },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the configuration reference', () => {
  it('in docs/configuration.md is what `npm run docs:config` generates from the schema', () => {
    const doc = readFileSync(DOC_FILE, 'utf8');
    expect(
      withReference(doc, renderReference()) === doc,
      'docs/configuration.md is stale: run `npm run docs:config`',
    ).toBe(true);
  });

  it('has a row with type, default and description for a nested key', () => {
    const ref = renderReference();
    expect(ref).toContain(
      '| `controllers.leaderElection.leaseDuration` | duration | `15s` | how long followers wait after the last renewal before taking the Lease (whole seconds) |',
    );
    expect(ref).toContain('| `clusters[].mode` | `normal` \\| `read-only` \\| `protected` | `normal` |');
  });

  it('takes descriptions from the comments above keys, and a section’s from its const', () => {
    const source = [
      "/** a duration: not a key's description */",
      'const dur = z.string();',
      '/** the section */',
      'const section = z.strictObject({',
      '  /** first line',
      '   * second line */',
      '  a: dur.default("1s"),',
      '  b: dur,',
      '});',
      'const configSchema = z.strictObject({',
      '  section: section.optional(),',
      '  /** the list */',
      '  list: z.array(z.strictObject({ /** an item key */ k: z.string() })).default([]),',
      '});',
    ].join('\n');
    expect(Object.fromEntries(commentsOf(source))).toEqual({
      section: 'the section',
      'section.a': 'first line second line',
      list: 'the list',
      'list[].k': 'an item key',
    });
  });
});
