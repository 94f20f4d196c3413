// bench/RESULTS.md holds every benchmark's latest results: the API server's (written by
// bench/run.ts) followed by the embedded cluster's (bench/cluster/RESULTS.md), the
// console's (bench/console/RESULTS.md), the deletion storm's (bench/protection/) and the
// fencing MTTR's (bench/mttr/), each between its own markers so that any one bench can be
// rerun alone and merged again.
import { readFile, writeFile } from 'node:fs/promises';

const SECTIONS = [
  { file: 'bench/cluster/RESULTS.md', marker: 'embedded-cluster-benchmark', title: 'Embedded' },
  { file: 'bench/console/RESULTS.md', marker: 'console-benchmark', title: 'Console' },
  { file: 'bench/protection/RESULTS.md', marker: 'protection-benchmark', title: 'Deletion' },
  { file: 'bench/mttr/RESULTS.md', marker: 'mttr-benchmark', title: 'MTTR' },
  { file: 'bench/auth/RESULTS.md', marker: 'auth-benchmark', title: 'Sign-in' },
  { file: 'bench/ha/RESULTS.md', marker: 'ha-benchmark', title: 'High' },
  { file: 'bench/image/RESULTS.md', marker: 'image-benchmark', title: 'Container' },
  { file: 'bench/history/RESULTS.md', marker: 'history-benchmark', title: 'History' },
  { file: 'bench/incident/RESULTS.md', marker: 'incident-benchmark', title: 'Incident' },
  { file: 'bench/memory/RESULTS.md', marker: 'memory-benchmark', title: 'Memory' },
  { file: 'bench/faults/RESULTS.md', marker: 'faults-run', title: 'Randomized' },
  { file: 'bench/fuzz/RESULTS.md', marker: 'fuzz', title: 'Fuzzing' },
];

const start = (marker: string) => `<!-- ${marker}:start -->`;
const end = (marker: string) => `<!-- ${marker}:end -->`;

/** The section between a marker pair in the current bench/RESULTS.md, kept when its file is missing. */
function existing(text: string, marker: string): string {
  const a = text.indexOf(start(marker));
  const b = text.indexOf(end(marker));
  return a >= 0 && b > a ? text.slice(a + start(marker).length, b).trim() : '';
}

/** A bench's own RESULTS.md, one heading level down. */
function demote(text: string, title: string): string {
  return text
    .replace(/^# /m, '## ')
    .replace(new RegExp(`^## (?!${title})`, 'gm'), '### ')
    .trim();
}

async function main() {
  const all = await readFile('bench/RESULTS.md', 'utf8');
  const firstMarker = Math.min(
    ...SECTIONS.map((s) => all.indexOf(start(s.marker))).filter((i) => i >= 0),
    all.length,
  );
  const parts = [all.slice(0, firstMarker).trimEnd()];
  for (const s of SECTIONS) {
    const own = await readFile(s.file, 'utf8').catch(() => '');
    const section = own ? demote(own, s.title) : existing(all, s.marker);
    if (section) parts.push(`${start(s.marker)}\n${section}\n${end(s.marker)}`);
  }
  await writeFile('bench/RESULTS.md', `${parts.join('\n\n')}\n`);
  console.log('bench/RESULTS.md: API server, embedded cluster and console results combined');
}

void main();
