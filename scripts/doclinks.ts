// Relative links and images in the project's Markdown (README.md, CONTRIBUTING.md, docs/*.md):
// each must name a file or folder that exists and, for a Markdown target, a heading it has
// (GitHub's anchors). scripts/test/docs.test.ts runs this over the committed docs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The Markdown files whose links are checked, relative to the repository root. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
    .sort();
  return ['README.md', 'CONTRIBUTING.md', ...docs].filter((f) => existsSync(join(root, f)));
}

/** The text with fenced code blocks blanked out (their lines kept, so line numbers hold). */
function withoutCode(md: string): string[] {
  let fence: string | undefined;
  return md.split('\n').map((line) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (!fence) fence = m[1][0];
      else if (m[1][0] === fence) fence = undefined;
      return '';
    }
    return fence ? '' : line.replace(/(`+)(?:(?!\1).)+?\1/g, '');
  });
}

/** GitHub's anchor for a heading's text (github-slugger's rule). */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

export type Link = { line: number; target: string };

/** The relative links and images of a document (outside code), with their line numbers. */
export function linksOf(md: string): Link[] {
  const out: Link[] = [];
  withoutCode(md).forEach((line, i) => {
    const add = (target: string) => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return; // http:, mailto:, …
      out.push({ line: i + 1, target });
    };
    for (const m of line.matchAll(/!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      add(m[1]);
    for (const m of line.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) add(m[1]);
    for (const m of line.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)) add(m[1]);
  });
  return out;
}

/** Every anchor a Markdown document offers: its headings' slugs (repeats get -1, -2, …) and id/name attributes. */
export function anchorsOf(md: string): Set<string> {
  const out = new Set<string>();
  const count = new Map<string, number>();
  let fence: string | undefined;
  for (const line of md.split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      if (!fence) fence = f[1][0];
      else if (f[1][0] === fence) fence = undefined;
      continue;
    }
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = count.get(base) ?? 0;
      count.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const a of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(a[1]);
  }
  return out;
}

export type Broken = { file: string; line: number; target: string; problem: string };

/**
 * Links that lead nowhere. `pending` names files another branch adds (accepted while missing;
 * checked like any other once they exist).
 */
export function brokenLinks(root: string, files: string[], pending: string[] = []): Broken[] {
  const broken: Broken[] = [];
  for (const file of files) {
    const abs = join(root, file);
    for (const { line, target } of linksOf(readFileSync(abs, 'utf8'))) {
      const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
      const path = decodeURIComponent(rawPath);
      const dest = path ? resolve(dirname(abs), path) : abs;
      const rel = relative(root, dest);
      if (rel.startsWith('..')) {
        broken.push({ file, line, target, problem: 'points outside the repository' });
        continue;
      }
      if (!existsSync(dest)) {
        if (!pending.includes(rel)) broken.push({ file, line, target, problem: `${rel} does not exist` });
        continue;
      }
      if (anchor === undefined || !dest.endsWith('.md') || statSync(dest).isDirectory()) continue;
      if (!anchorsOf(readFileSync(dest, 'utf8')).has(anchor))
        broken.push({ file, line, target, problem: `${rel} has no heading #${anchor}` });
    }
  }
  return broken;
}
