// `npm run infra -- [--kubeconfig PATH] [--json] <verb> [node] [--volume PV]`: drive the
// embedded cluster's infrastructure. The control API's address and token are read
// from infra.json beside the kubeconfig, so no extra flag is needed.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { infraFileFor } from '../cluster.js';
import { nodeVerbs } from './api.js';

const readVerbs = ['status', 'processes', 'violations'] as const;
const usageText = `usage: npm run infra -- [--kubeconfig PATH] [--json] <verb> [node] [--volume PV]
  verbs: ${readVerbs.join(', ')}, ${nodeVerbs.join(', ')}`;

function fail(msg: string, code = 2): never {
  console.error(`error: ${msg}`);
  if (code === 2) console.error(usageText);
  process.exit(code);
}

async function connection(kubeconfig: string) {
  const file = infraFileFor(resolve(kubeconfig));
  try {
    const info = JSON.parse(await readFile(file, 'utf8')) as { url: string; token: string };
    return info;
  } catch (e) {
    fail(
      `cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): is the embedded cluster running? Start it with npm run cluster`,
      1,
    );
  }
}

async function call(info: { url: string; token: string }, method: string, path: string, body?: object) {
  let res: Response;
  try {
    res = await fetch(info.url + path, {
      method,
      headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (e) {
    fail(
      `the infrastructure API at ${info.url} does not answer (${(e as Error).cause ?? (e as Error).message}): is the embedded cluster still running?`,
      1,
    );
  }
  const json = (await res.json()) as Record<string, any>;
  if (!res.ok) fail(json.error ?? `HTTP ${res.status}`, 1);
  return json;
}

const ago = (t?: number) => (t ? `${Math.round((Date.now() - t) / 1000)}s ago` : '');

function printStatus(s: Record<string, any>) {
  console.log(
    'NODE'.padEnd(16),
    'POWER'.padEnd(6),
    'NETWORK'.padEnd(12),
    'KUBELET'.padEnd(9),
    'PROCESSES'.padEnd(10),
    'STORAGE',
  );
  for (const n of s.nodes) {
    const net = n.gone ? 'destroyed' : n.partitioned ? 'partitioned' : 'connected';
    const storage = n.storageFenced.length ? `fenced: ${n.storageFenced.join(',')}` : 'ok';
    console.log(
      String(n.name).padEnd(16),
      String(n.power).padEnd(6),
      net.padEnd(12),
      String(n.kubelet).padEnd(9),
      String(n.processes).padEnd(10),
      storage,
    );
  }
  console.log(`\n${s.processes} processes running, ${s.violations} open safety violations`);
}

function printProcesses(list: Record<string, any>[]) {
  console.log(
    'NODE'.padEnd(14),
    'NAMESPACE/POD'.padEnd(34),
    'IDENTITY'.padEnd(24),
    'VOLUMES'.padEnd(28),
    'STARTED',
  );
  for (const p of list) {
    const vols = p.volumes.map((v: any) => `${v.pv}(${v.accessMode.replace(/[a-z]/g, '')})`).join(',');
    console.log(
      String(p.node).padEnd(14),
      `${p.namespace}/${p.podName}`.padEnd(34),
      String(p.identity ?? '-').padEnd(24),
      (vols || '-').padEnd(28),
      ago(p.startedAt),
    );
  }
}

function printViolations(list: Record<string, any>[]) {
  if (list.length === 0) return console.log('no safety violations');
  for (const v of list) {
    console.log(
      `#${v.id} ${v.until ? 'ENDED' : 'OPEN'} ${v.invariant} ${v.subject}: ${v.message} (since ${new Date(v.since).toISOString()}${v.until ? `, until ${new Date(v.until).toISOString()}` : ''})`,
    );
  }
}

async function main() {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      options: {
        kubeconfig: { type: 'string' },
        json: { type: 'boolean' },
        volume: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    fail((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return console.log(usageText);
  const [verb, node] = positionals;
  if (!verb) fail('a verb is required');
  const info = await connection(String(values.kubeconfig ?? '.palisade/kubeconfig'));
  const out = (data: unknown, human: () => void) =>
    values.json ? console.log(JSON.stringify(data, null, 2)) : human();
  if (verb === 'status') {
    const s = await call(info, 'GET', '/v1/status');
    return out(s, () => printStatus(s));
  }
  if (verb === 'processes') {
    const s = await call(info, 'GET', `/v1/processes${node ? `?node=${encodeURIComponent(node)}` : ''}`);
    return out(s, () => printProcesses(s.processes));
  }
  if (verb === 'violations') {
    const s = await call(info, 'GET', '/v1/violations');
    return out(s, () => printViolations(s.violations));
  }
  if (!(nodeVerbs as readonly string[]).includes(verb)) fail(`unknown verb "${verb}"`);
  if (!node) fail(`${verb} needs a node name`);
  const s = await call(
    info,
    'POST',
    `/v1/nodes/${encodeURIComponent(node)}/${verb}`,
    values.volume ? { volume: String(values.volume) } : {},
  );
  out(s, () =>
    console.log(
      `${verb}: ${node} is now power=${s.node.power} network=${s.node.partitioned ? 'partitioned' : 'connected'} kubelet=${s.node.kubelet}`,
    ),
  );
}

main().catch((e) => fail((e as Error).message, 1));
