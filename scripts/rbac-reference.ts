// The table of the ServiceAccount's rules in docs/rbac.md, generated from server/rbac/rules.ts
// (the list server/rbac/chart.test.ts checks the chart against).
//
//   npm run docs:rbac            rewrite the table between the markers
//   npm run docs:rbac -- --check exit 1 (and say so) when the committed table is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ruleTable } from '../server/rbac/rules.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOC_FILE = join(ROOT, 'docs/rbac.md');
const BEGIN = '<!-- BEGIN GENERATED: rule list (npm run docs:rbac) -->';
const END = '<!-- END GENERATED: rule list -->';

export function withTable(doc: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < b) throw new Error(`${DOC_FILE}: the markers ${BEGIN} … ${END} are missing`);
  const block = [
    BEGIN,
    '',
    '<!-- Do not edit by hand: generated from server/rbac/rules.ts by scripts/rbac-reference.ts. -->',
    '',
    ruleTable(),
    '',
    END,
  ].join('\n');
  return doc.slice(0, b) + block + doc.slice(e + END.length);
}

function main() {
  const doc = readFileSync(DOC_FILE, 'utf8');
  const next = withTable(doc);
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      console.error('docs/rbac.md: the rule list is stale; run `npm run docs:rbac`');
      process.exit(1);
    }
    console.log('docs/rbac.md: the rule list is up to date');
    return;
  }
  if (next !== doc) writeFileSync(DOC_FILE, next);
  console.log(`docs/rbac.md: ${next === doc ? 'unchanged' : 'rule list rewritten'}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
