// Reads a V8 .cpuprofile and says where the time went: a breakdown by part of the
// cluster (TLS connection setup, client-node, API server, controllers, kubelets, ...),
// self time per function, and inclusive time per function of this repository, so a
// slow phase comes with evidence rather than a guess.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Hot {
  name: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  label: string;
  totalMs: number;
  idlePct: number;
  gcPct: number;
  parts: Hot[];
  self: Hot[];
  inclusive: Hot[];
}

const repoRoot = new URL('../../', import.meta.url).href;

// tsx serves each module as one generated line, so line numbers say nothing: name + file
function frameName(f: CallFrame): string {
  const file = f.url.startsWith(repoRoot)
    ? f.url.slice(repoRoot.length)
    : f.url.replace(/^.*node_modules\//, '');
  return `${f.functionName || '(anonymous)'}${file ? ` ${file}` : ''}`;
}

const ours = (f: CallFrame) => f.url.startsWith(repoRoot) && !f.url.includes('/node_modules/');

/** Frames that only run while a TLS connection is being set up (both ends live in the cluster). */
const TLS_SETUP = new Set([
  'connect node:_tls_wrap',
  'createSecureContext node:_tls_common',
  'TLSSocket._finishInit node:_tls_wrap',
  'ssl.onhandshakedone node:_tls_wrap',
  'ssl.onhandshakestart node:_tls_wrap',
  'tlsConnectionListener node:_tls_wrap',
  'onServerSocketSecure node:_tls_wrap',
]);

/** Which part of the cluster a sample belongs to, judged from its whole stack. */
const PARTS: [string, (f: CallFrame) => boolean][] = [
  ['TLS connection setup (client and server ends)', (f) => TLS_SETUP.has(`${f.functionName} ${f.url}`)],
  [
    'client-node (request building, (de)serialisation)',
    (f) => /@kubernetes\/client-node|node-fetch|isomorphic-fetch/.test(f.url),
  ],
  ['API server (sim/apiserver)', (f) => f.url.includes('/sim/apiserver/')],
  ['controllers (sim/controllers)', (f) => f.url.includes('/sim/controllers/')],
  ['kubelets (sim/kubelet)', (f) => f.url.includes('/sim/kubelet/')],
  ['infrastructure and checker (sim/infra, sim/checker)', (f) => /\/sim\/(infra|checker)\//.test(f.url)],
  ['bench sampling (bench/cluster)', (f) => f.url.includes('/bench/cluster/')],
];

function partOf(stack: CallFrame[], leaf: CallFrame): string {
  if (leaf.functionName === '(idle)' || leaf.functionName === '(garbage collector)') return leaf.functionName;
  if (leaf.functionName === '(program)') return '(program: V8/native, unattributed)';
  for (const [name, test] of PARTS) if (stack.some(test)) return name;
  return 'other (node internals: sockets, HTTP parsing, timers)';
}

function top(times: Map<string, number>, totalMs: number, n: number): Hot[] {
  return [...times.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms, pct: (100 * ms) / totalMs }));
}

const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);

export function summarize(path: string, label: string, n = 12): ProfileSummary {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const parts = new Map<string, number>();
  let totalMs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(p.samples[i]);
    if (!leaf) continue;
    const stack: CallFrame[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id))
      stack.push(byId.get(id)!.callFrame);
    // the profiler stopping itself (serialising the profile) is not the cluster's time
    if (stack.some((f) => f.url === 'node:inspector')) continue;
    totalMs += ms;
    add(self, frameName(leaf.callFrame), ms);
    add(parts, partOf(stack, leaf.callFrame), ms);
    // count each function once per sample, however deep it recurses
    for (const name of new Set(stack.filter(ours).map(frameName))) add(inclusive, name, ms);
  }
  const total = totalMs || 1;
  const share = (name: string) => (100 * (self.get(name) ?? 0)) / total;
  const busy = new Map([...self].filter(([k]) => k !== '(idle)' && k !== '(program)'));
  return {
    label,
    totalMs,
    idlePct: share('(idle)'),
    gcPct: share('(garbage collector)'),
    parts: top(parts, total, PARTS.length + 4),
    self: top(busy, total, n),
    inclusive: top(inclusive, total, n),
  };
}
