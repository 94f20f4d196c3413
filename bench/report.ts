// Figures, their targets, the console table and bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

export interface Target {
  op: '>=' | '<=';
  value: number;
}

export interface Row {
  section: string;
  metric: string;
  value: number;
  unit: string;
  target?: Target;
  note?: string;
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

export function passes(r: Row): boolean | undefined {
  if (!r.target) return undefined;
  if (!Number.isFinite(r.value)) return false;
  return r.target.op === '>=' ? r.value >= r.target.value : r.value <= r.target.value;
}

export function fmt(v: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

function cells(r: Row): string[] {
  const p = passes(r);
  return [
    r.section,
    r.metric,
    `${fmt(r.value)} ${r.unit}`,
    r.target ? `${r.target.op} ${fmt(r.target.value)} ${r.unit}` : '',
    p === undefined ? '' : p ? 'PASS' : 'FAIL',
    r.note ?? '',
  ];
}

const HEADER = ['phase', 'metric', 'value', 'target', 'result', 'notes'];

export function consoleTable(rows: Row[]): string {
  const all = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, c) => Math.max(...all.map((r) => r[c].length)));
  const line = (r: string[]) =>
    r
      .map((v, c) => v.padEnd(widths[c]))
      .join('  ')
      .trimEnd();
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

export function markdownTable(rows: Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const line = (r: string[]) => `| ${r.map(esc).join(' | ')} |`;
  return [line(HEADER), `|${HEADER.map(() => '---').join('|')}|`, ...rows.map((r) => line(cells(r)))].join(
    '\n',
  );
}

export interface Machine {
  date: string;
  /** the server code measured: the tree changes under other sessions, so say which */
  revision: string;
  cpu: string;
  cores: number;
  memory: string;
  node: string;
  os: string;
}

export function machine(): Machine {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch {
    // not Linux: os.cpus() already gave a model
  }
  let date = new Date().toUTCString();
  try {
    date = execFileSync('date', ['-u'], { encoding: 'utf8' }).trim();
  } catch {
    // no date(1): the JS date says the same
  }
  return {
    date,
    revision: revision(),
    cpu,
    cores: os.cpus().length,
    memory: `${(os.totalmem() / GiB).toFixed(1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

function revision(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const dirty = git(['status', '--porcelain', '--', 'sim', 'lib']) !== '';
    return `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? ' + uncommitted changes in sim/ or lib/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** A RESULTS.md section: `## title`, a blank line, its lines, a blank line. */
export function section(title: string, lines: string[]): string[] {
  return [`## ${title}`, '', ...lines, ''];
}

/** Bullet lines, or "- none" for an empty list (a section that says nothing is still shown). */
export function bullets(items: string[]): string[] {
  return items.length ? items.map((i) => `- ${i}`) : ['- none'];
}

/** The head of every RESULTS.md: title, date, machine, code, command, wall time and targets met. */
export function resultsHeader(h: {
  title: string;
  machine: Machine;
  revision: string;
  command: string;
  durationS: number;
  met: number;
  targeted: number;
  warning?: string;
}): string[] {
  const m = h.machine;
  return [
    `# ${h.title}`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memory} RAM, ${m.os}`,
    `- Node: ${m.node}`,
    `- Code: git ${h.revision}`,
    `- Command: \`${h.command}\``,
    `- Wall time: ${h.durationS.toFixed(0)} s`,
    `- Targets met: ${h.met} of ${h.targeted}`,
    ...(h.warning ? [`- ${h.warning}`] : []),
    '',
  ];
}

/** A bench's RESULTS.md: the head, its setup, the figures (targets met counted from the rows). */
export function benchResults(d: {
  title: string;
  command: string;
  durationS: number;
  setup: string[];
  rows: Row[];
}): string {
  const m = machine();
  return [
    ...resultsHeader({
      title: d.title,
      machine: m,
      revision: m.revision,
      command: d.command,
      durationS: d.durationS,
      met: d.rows.filter((r) => passes(r) === true).length,
      targeted: d.rows.filter((r) => r.target).length,
    }),
    ...section('Setup', bullets(d.setup)),
    ...section('Figures', [markdownTable(d.rows)]),
  ].join('\n');
}

export interface ResultsDoc {
  machine: Machine;
  command: string;
  durationS: number;
  rows: Row[];
  setup: string[];
  findings: string[];
}

export function writeResults(path: string, d: ResultsDoc) {
  const m = d.machine;
  const failed = d.rows.filter((r) => passes(r) === false).length;
  const others = Math.max(
    0,
    ...d.rows.filter((r) => r.metric === 'CPU taken by other processes').map((r) => r.value),
  );
  // two cores are shared with anything else running: say so where nobody can miss it
  const warning =
    others > 25
      ? [
          `- **Shared machine:** other processes took up to ${fmt(others)}% of one core during a phase; the figures are pessimistic.`,
        ]
      : [];
  const targeted = d.rows.filter((r) => r.target).length;
  const text = [
    ...resultsHeader({
      title: 'Embedded API server benchmark',
      machine: m,
      revision: m.revision,
      command: d.command,
      durationS: d.durationS,
      met: targeted - failed,
      targeted,
      warning: warning[0]?.slice(2),
    }),
    ...section('Setup', bullets(d.setup)),
    ...section('Figures', [markdownTable(d.rows)]),
    ...section('Observations', bullets(d.findings)),
  ].join('\n');
  writeFileSync(path, text);
}
