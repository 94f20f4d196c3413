// Which nodes really write to which volumes, read from the embedded cluster's infrastructure
// API (ground truth: simulation only). Only the nodes that matter are read — where the
// volumes are attached, where their pods are, where their deleted pods were — a few requests
// in parallel; past MAX_NODES one full process list is cheaper than many small ones.
import { errorText } from '../../lib/kube/errorText.js';
import type { GroundTruthInput, TruthProcess } from '../../lib/volumes/rwoTypes.js';
import type { InfraEndpoint } from '../kube/infra.js';

const MAX_NODES = 64;
const PARALLEL = 8;
const TIMEOUT_MS = 5_000;

interface RawProcess {
  node: string;
  namespace: string;
  podName: string;
  podUid: string;
  volumes?: { pv: string }[];
}

async function get<T>(ep: InfraEndpoint, path: string): Promise<T> {
  const res = await fetch(`${ep.url}${path}`, {
    headers: { authorization: `Bearer ${ep.token}` },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`infrastructure API answered ${res.status} to GET ${path}`);
  return (await res.json()) as T;
}

const processes = (ep: InfraEndpoint, node?: string) =>
  get<{ processes: RawProcess[] }>(
    ep,
    `/v1/processes${node ? `?node=${encodeURIComponent(node)}` : ''}`,
  ).then((b) => b.processes);

async function processesOn(ep: InfraEndpoint, nodes: string[]): Promise<RawProcess[]> {
  if (nodes.length > MAX_NODES) return processes(ep);
  const out: RawProcess[] = [];
  for (let i = 0; i < nodes.length; i += PARALLEL)
    for (const list of await Promise.all(nodes.slice(i, i + PARALLEL).map((n) => processes(ep, n))))
      out.push(...list);
  return out;
}

const toTruth = (p: RawProcess): TruthProcess => ({
  node: p.node,
  namespace: p.namespace,
  podName: p.podName,
  podUid: p.podUid,
  volumes: (p.volumes ?? []).map((v) => v.pv),
});

export type TruthRead = { truth: GroundTruthInput } | { error: string };

/** Processes with volumes on these nodes, and the storage fences in force. */
export async function readVolumeTruth(ep: InfraEndpoint, nodes: string[]): Promise<TruthRead> {
  try {
    const [procs, status] = await Promise.all([
      nodes.length ? processesOn(ep, nodes) : Promise.resolve([]),
      get<{ nodes: { name: string; storageFenced?: string[] }[] }>(ep, '/v1/status'),
    ]);
    const fenced: Record<string, string[]> = {};
    for (const n of status.nodes) if (n.storageFenced?.length) fenced[n.name] = n.storageFenced;
    const wanted = new Set(nodes);
    return {
      truth: {
        processes: procs.filter((p) => p.volumes?.length && wanted.has(p.node)).map(toTruth),
        fenced,
      },
    };
  } catch (e) {
    return { error: `reading the ground truth failed: ${errorText(e)}` };
  }
}
