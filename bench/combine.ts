// bench/RESULTS.md holds every benchmark's latest results: the API server's (written by
// bench/run.ts) followed by the embedded cluster's (bench/cluster/RESULTS.md).
import { readFile, writeFile } from 'node:fs/promises';

const START = '<!-- embedded-cluster-benchmark:start -->';
const END = '<!-- embedded-cluster-benchmark:end -->';

async function main() {
  const api = await readFile('bench/RESULTS.md', 'utf8');
  const cluster = await readFile('bench/cluster/RESULTS.md', 'utf8').catch(() => '');
  const base = api.includes(START) ? api.slice(0, api.indexOf(START)).trimEnd() : api.trimEnd();
  if (!cluster) return;
  const section = cluster.replace(/^# /m, '## ').replace(/^## (?!Embedded)/gm, '### ');
  await writeFile('bench/RESULTS.md', `${base}\n\n${START}\n${section.trim()}\n${END}\n`);
  console.log('bench/RESULTS.md: API server and embedded cluster results combined');
}

void main();
