// bench:memory's figures: rows for the console table and bench/memory/RESULTS.md.
import { writeFileSync } from 'node:fs';
import {
  bullets,
  fmt,
  GiB,
  type Machine,
  MiB,
  markdownTable,
  passes,
  resultsHeader,
  type Row,
  section,
} from '../report.js';
import type { StageResult, WholeRun } from './demo.js';
import { LIVE, PAGES } from './exercise.js';
import type { ScaleRun } from './scale.js';
import type { Mark } from './marks.js';

/** issue 23's targets: steady and peak on the demo cluster, peak at 5000 nodes / 150 000 pods */
export const TARGETS = { steadyMiB: 350, peakMiB: 512, scalePeakMiB: 1024 };

const mib = (b: number) => b / MiB;
const at = (r: StageResult | undefined, name: string) => r?.marks.find((m) => m.name === name);

function objectsNote(m: Mark | undefined): string {
  if (!m?.objects) return '';
  const byKind = new Map<string, number>();
  for (const [k, n] of Object.entries(m.objects)) {
    const kind = k.split('/').pop()!;
    byKind.set(kind, (byKind.get(kind) ?? 0) + n);
  }
  return [...byKind].map(([k, n]) => `${n} ${k}`).join(', ');
}

function heapNote(m: Mark | undefined): string {
  return m
    ? `heap used ${fmt(mib(m.heapUsed))} MiB, code and maps ${fmt(mib(m.codeAndMetadata))} MiB, external ${fmt(mib(m.external))} MiB`
    : '';
}

/** The breakdown: each stage's RSS less the one before it (after two full GCs in each). */
export function componentRows(baseline: number, stages: StageResult[], rounds: number): Row[] {
  const s = (stage: string) => stages.find((x) => x.stage === stage);
  const modules = at(s('modules'), 'modules');
  const synced = at(s('console'), 'console');
  const ui = at(s('ui'), 'ui');
  const pages = at(s('ui'), 'ui-pages');
  const live = at(s('ui'), 'ui-live');
  const hist = at(s('history'), 'history-live');
  const row = (metric: string, value: number, note = ''): Row => ({
    section: 'components',
    metric,
    value: mib(value),
    unit: 'MiB',
    note,
  });
  const d = (a?: Mark, b?: Mark | number) =>
    a && b !== undefined ? a.rss - (typeof b === 'number' ? b : b.rss) : Number.NaN;
  return [
    row('Node baseline (an idle node process)', baseline, 'VmRSS of `node -e "setInterval(...)"`'),
    row('+ the server’s modules, loaded', d(modules, baseline), heapNote(modules)),
    row(
      '+ informers and their caches, controller loops, tRPC, socket.io hub',
      d(synced, modules),
      `synced: ${objectsNote(synced)}; ${heapNote(synced)}`,
    ),
    row('+ the Next.js request handler, prepared', d(ui, synced), heapNote(ui)),
    row(
      `+ Next.js after every page ${rounds}x`,
      d(pages, ui),
      `${PAGES.length} pages in Chromium, signed in with a token, the tab closed, settled; ${heapNote(pages)}`,
    ),
    row(`+ socket.io sessions of ${LIVE.length} open pages`, d(live, pages), LIVE.join(', ')),
    row(
      '+ the history store (PGlite in its worker, from the template)',
      d(hist, live),
      'the history stage (every part above, the store too) less the UI stage, both after the same pages',
    ),
    row('= every part (the history stage, pages open)', hist?.rss ?? Number.NaN, heapNote(hist)),
  ];
}

export function wholeRows(runs: WholeRun[], targeted: string[]): Row[] {
  return runs.flatMap((r) => {
    const t = targeted.includes(r.label);
    const note = `URL after ${fmt(r.urlS)} s, /readyz ${fmt(r.readyS)} s, history open ${fmt(r.historyS)} s; ${r.loads} page loads${r.errors.length ? `; page errors: ${r.errors.slice(0, 3).join('; ')}` : ''}`;
    return [
      {
        section: 'whole server',
        metric: `${r.label}: steady RSS`,
        value: mib(r.steady),
        unit: 'MiB',
        ...(t ? { target: { op: '<=' as const, value: TARGETS.steadyMiB } } : {}),
        note,
      },
      {
        section: 'whole server',
        metric: `${r.label}: peak RSS (VmHWM)`,
        value: mib(r.peak),
        unit: 'MiB',
        ...(t ? { target: { op: '<=' as const, value: TARGETS.peakMiB } } : {}),
      },
      ...(r.descendants.peak > 0
        ? [
            {
              section: 'whole server',
              metric: `${r.label}: its child processes, steady RSS`,
              value: mib(r.descendants.steady),
              unit: 'MiB',
              note: `the embedded cluster (sim/child.ts) and its BMCs (ipmi_sim), which a pod never runs; their highest sum sampled: ${fmt(mib(r.descendants.peak))} MiB`,
            },
          ]
        : []),
    ];
  });
}

export function scaleRows(r: ScaleRun): Row[] {
  const { nodes, pods } = r.cfg.shape;
  const row = (metric: string, value: number, note = '', target?: number): Row => ({
    section: 'scale',
    metric,
    value: mib(value),
    unit: 'MiB',
    ...(target ? { target: { op: '<=' as const, value: target } } : {}),
    note,
  });
  return [
    {
      section: 'scale',
      metric: `load ${nodes} nodes + Leases + ${pods} pods through the API`,
      value: r.loadMs / 1000,
      unit: 's',
    },
    row(
      'RSS once synced, no browser',
      r.synced?.rss ?? Number.NaN,
      `informers synced ${fmt(r.syncMs / 1000)} s after start`,
    ),
    row(
      'RSS after the map renders',
      r.afterRenders?.rss ?? Number.NaN,
      r.renderS.length ? `full map after ${r.renderS.map((x) => fmt(x)).join(', ')} s` : '',
    ),
    row('RSS at the end', r.afterUpdates?.rss ?? Number.NaN, r.updatesSeen),
    row(
      'peak RSS (VmHWM) over the run',
      r.peak,
      `${(r.peak / GiB).toFixed(2)} GiB; ${
        r.cgroup
          ? `in a memory cgroup limited to ${fmt(r.cgroup.limitBytes / MiB)} MiB (the chart's limit), ${r.cgroup.oomKills} OOM kill(s)`
          : 'not in a memory cgroup (not root)'
      }${r.ended ? `; the server ended early: ${r.ended}` : ''}${r.errors.length ? `; ${r.errors.join('; ')}` : ''}`,
      TARGETS.scalePeakMiB,
    ),
    {
      section: 'scale',
      metric: 'pods snapshots sent again to the open map during the updates',
      value: r.resent,
      unit: 'snapshots',
      target: { op: '<=', value: 0 },
      note: 'each is the whole pod list (about 50 MB here); the hub resent it every few seconds before',
    },
  ];
}

export function ratios(rows: Row[]): string[] {
  return rows
    .filter((r) => r.target && r.target.op === '<=' && r.target.value > 0)
    .map(
      (r) =>
        `${r.metric}: ${fmt(r.value)} ${r.unit} = ${(r.value / r.target!.value).toFixed(2)}x of the ${fmt(r.target!.value)} ${r.unit} target (${passes(r) ? 'met' : 'MISSED'})`,
    );
}

export function writeDoc(
  path: string,
  d: {
    machine: Machine;
    command: string;
    durationS: number;
    setup: string[];
    rows: Row[];
    findings: string[];
  },
) {
  const targeted = d.rows.filter((r) => r.target);
  const text = [
    ...resultsHeader({
      title: 'Memory benchmark',
      machine: d.machine,
      revision: d.machine.revision,
      command: d.command,
      durationS: d.durationS,
      met: targeted.filter((r) => passes(r)).length,
      targeted: targeted.length,
    }),
    ...section('Setup', bullets(d.setup)),
    ...section('Figures', [markdownTable(d.rows)]),
    ...section('Against the targets', bullets(ratios(d.rows))),
    ...section('Observations', bullets(d.findings)),
  ].join('\n');
  writeFileSync(path, text);
}
