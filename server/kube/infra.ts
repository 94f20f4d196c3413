// A client for the embedded cluster's infrastructure control API (not the Kubernetes
// API): fault injection and the kubelet's termination timeline. Real clusters have none.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { ProcessView } from '../../lib/console/ghosts.js';
import type { KubeletStep } from '../../lib/console/protocol.js';

export interface InfraEndpoint {
  url: string;
  token: string;
  /** the embedded cluster's force-detach wait (scaled by its scenario) */
  forceDetach?: { enabled: boolean; maxWaitMs: number };
}

/** The fault verbs the console offers (a subset of the infrastructure's). */
export const consoleVerbs = [
  'partition',
  'heal',
  'power-off',
  'power-on',
  'kubelet-crash',
  'kubelet-restart',
  'meteor',
] as const;
export type ConsoleVerb = (typeof consoleVerbs)[number];

export type { KubeletStep as TerminationStep } from '../../lib/console/protocol.js';

export class InfraError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const infraFile = z.object({
  url: z.string().url(),
  token: z.string().min(1),
  /** the embedded cluster's (scaled) force-detach wait, for the Volumes page's countdown */
  forceDetach: z.object({ enabled: z.boolean(), maxWaitMs: z.number().int().min(0) }).optional(),
});

/** The context `npm run cluster` writes by default; its infra file is plain infra.json. */
const DEFAULT_EMBEDDED_CONTEXT = 'palisade-embedded';

/** The infrastructure file for an embedded cluster's context, beside its kubeconfig. */
export function infraFileName(context: string): string {
  return context === DEFAULT_EMBEDDED_CONTEXT ? 'infra.json' : `infra-${context}.json`;
}

/**
 * The infra file `npm run cluster` (or `--scenario cells`) writes beside its kubeconfig for
 * this context, if there is one: infra.json for palisade-embedded, infra-<context>.json for a
 * named one. Real clusters have none, so nothing is found for them.
 */
export async function readInfraFile(
  kubeconfigPath: string,
  context: string = DEFAULT_EMBEDDED_CONTEXT,
): Promise<InfraEndpoint | undefined> {
  try {
    const parsed = infraFile.safeParse(
      JSON.parse(await readFile(join(dirname(kubeconfigPath), infraFileName(context)), 'utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function call<T>(ep: InfraEndpoint, method: 'GET' | 'POST', path: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${ep.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ep.token}`, 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    throw new InfraError(`infrastructure API at ${ep.url} unreachable: ${(e as Error).message}`, 503);
  }
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new InfraError(body.error ?? `infrastructure API answered ${res.status}`, res.status);
  return body as T;
}

export async function terminationSteps(ep: InfraEndpoint, podUid: string): Promise<KubeletStep[]> {
  const body = await call<{ steps: KubeletStep[] }>(ep, 'GET', `/v1/timeline/${encodeURIComponent(podUid)}`);
  return body.steps;
}

export async function nodeFault(ep: InfraEndpoint, node: string, verb: ConsoleVerb): Promise<unknown> {
  const body = await call<{ node: unknown }>(ep, 'POST', `/v1/nodes/${encodeURIComponent(node)}/${verb}`);
  return body.node;
}

/** The processes running right now, as the infrastructure's ground truth has them. */
export async function runningProcesses(ep: InfraEndpoint): Promise<RawProcess[]> {
  const body = await call<{ processes: RawProcess[] }>(ep, 'GET', '/v1/processes');
  return body.processes;
}

/** The fields of the infrastructure's process record the console reads. */
export type RawProcess = Omit<ProcessView, 'volumes'> & { volumes?: { pv: string }[] };

/** The BMC's power state for a node, or after a power action (what a fence agent sees). */
export async function bmc(
  ep: InfraEndpoint,
  node: string,
  action?: 'on' | 'off' | 'reset',
): Promise<'on' | 'off'> {
  const path = `/v1/bmc/${encodeURIComponent(node)}${action ? `/${action}` : ''}`;
  const body = await call<{ power: 'on' | 'off' }>(ep, action ? 'POST' : 'GET', path);
  return body.power;
}

/** Cut a node from all its volumes (or restore it): the storage side of fencing. */
export async function storageFence(ep: InfraEndpoint, node: string, fenced: boolean): Promise<void> {
  await call(
    ep,
    'POST',
    `/v1/nodes/${encodeURIComponent(node)}/${fenced ? 'storage-fence' : 'storage-unfence'}`,
  );
}

/** The volumes a node is cut from ("*" = all), as the storage system reports it. */
export async function storageFencedVolumes(ep: InfraEndpoint, node: string): Promise<string[]> {
  const body = await call<{ nodes: { name: string; storageFenced?: string[] }[] }>(ep, 'GET', '/v1/status');
  const n = body.nodes.find((x) => x.name === node);
  if (!n) throw new InfraError(`no such node: ${node}`, 404);
  return n.storageFenced ?? [];
}
