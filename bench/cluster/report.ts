// Printing the cluster bench: a console table, and the same figures as markdown for
// bench/cluster/RESULTS.md, with the machine they were measured on.
import type { ProfileSummary } from './profile.js';

export interface Row {
  phase: string;
  metric: string;
  value: string;
  notes?: string;
}

// the machine a run was measured on: the same record the API server and console benches give
export { type Machine, machine } from '../report.js';

export function bytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(0)} MiB`;
  return `${(n / 2 ** 10).toFixed(0)} KiB`;
}

export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const num = (n: number) => Math.round(n).toLocaleString('en-US');
export const msFmt = (ms: number) => (ms >= 100 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`);

function pad(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

/** Plain columns for the terminal, with a rule under the header. */
export function consoleGrid(header: string[], rows: string[][]): string {
  const lines = pad([header, ...rows]);
  lines.splice(1, 0, '-'.repeat(lines[0].length));
  return lines.join('\n');
}

export function consoleTable(rows: Row[]): string {
  const cells = [
    ['phase', 'metric', 'value', 'notes'],
    ...rows.map((r) => [r.phase, r.metric, r.value, r.notes ?? '']),
  ];
  const lines = pad(cells);
  lines.splice(1, 0, '-'.repeat(Math.min(160, lines[0].length + 40)));
  return lines.join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

export function mdTable(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

export function profileMarkdown(p: ProfileSummary): string {
  const hot = (h: ProfileSummary['self']) => h.map((x) => [x.name, msFmt(x.ms), `${x.pct.toFixed(1)} %`]);
  return [
    `### Profile: ${p.label} (${secs(p.totalMs)} sampled, idle ${p.idlePct.toFixed(0)} %, GC ${p.gcPct.toFixed(1)} %)`,
    '',
    'Where the time went (each sample counted once, by the first matching part of its stack):',
    '',
    mdTable(['part', 'time', 'share'], hot(p.parts)),
    '',
    'Self time (top functions):',
    '',
    mdTable(['function', 'self', 'share'], hot(p.self)),
    '',
    'Inclusive time, functions of this repository:',
    '',
    mdTable(['function', 'inclusive', 'share'], hot(p.inclusive)),
  ].join('\n');
}

export function profileConsole(p: ProfileSummary): string {
  const line = (h: ProfileSummary['self'][number]) => `  ${h.pct.toFixed(1).padStart(5)} %  ${h.name}`;
  return [
    `profile ${p.label}: ${secs(p.totalMs)}, idle ${p.idlePct.toFixed(0)} %, GC ${p.gcPct.toFixed(1)} %`,
    ' parts:',
    ...p.parts.map(line),
    ' self:',
    ...p.self.slice(0, 8).map(line),
    ' inclusive (repo):',
    ...p.inclusive.slice(0, 8).map(line),
  ].join('\n');
}
