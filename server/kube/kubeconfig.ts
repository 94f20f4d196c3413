// Turns a kubeconfig file and the chosen contexts into cluster specs, with startup
// errors that name the file and say what is wrong with it.
import { readFile } from 'node:fs/promises';
import * as k8s from '@kubernetes/client-node';
import type { ClusterMode } from '../config/schema.js';
import type { ClusterSpec } from './connection.js';
import { readInfraFile } from './infra.js';

/** The context `npm run cluster` (and the in-process embedded cluster) writes. */
export const EMBEDDED_CONTEXT = 'palisade-embedded';

export class StartupError extends Error {}

const reasons: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
};

async function readKubeconfig(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    throw new StartupError(`cannot read kubeconfig ${path}: ${reasons[code] ?? (e as Error).message}`);
  }
}

function parseKubeconfig(path: string, text: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (e) {
    throw new StartupError(`kubeconfig ${path} is not valid: ${(e as Error).message}`);
  }
  if (kc.getContexts().length === 0) throw new StartupError(`kubeconfig ${path} has no contexts`);
  return kc;
}

/** A URL- and room-safe cluster id derived from the context name. */
export function clusterId(context: string, taken: Set<string>): string {
  const base =
    context
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'cluster';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

export interface LoadOptions {
  contexts?: string[];
  /** each context's mode (palisade.yaml); normal when not given */
  modeOf?: (context: string) => ClusterMode;
}

export async function clustersFromKubeconfig(path: string, opts: LoadOptions = {}): Promise<ClusterSpec[]> {
  const text = await readKubeconfig(path);
  const kc = parseKubeconfig(path, text);
  const known = kc.getContexts().map((c) => c.name);
  const wanted = opts.contexts?.length ? opts.contexts : [kc.getCurrentContext() || known[0]];
  const taken = new Set<string>();
  const specs: ClusterSpec[] = [];
  for (const context of wanted) {
    if (!known.includes(context))
      throw new StartupError(
        `kubeconfig ${path} has no context "${context}" (contexts: ${known.join(', ')})`,
      );
    const own = new k8s.KubeConfig();
    own.loadFromString(text);
    own.setCurrentContext(context);
    if (!own.getCurrentCluster())
      throw new StartupError(`kubeconfig ${path}: context "${context}" names no cluster`);
    // ground truth only for the embedded cluster, found by its context and infra.json
    const infra = context === EMBEDDED_CONTEXT ? await readInfraFile(path) : undefined;
    specs.push({
      id: clusterId(context, taken),
      context,
      kc: own,
      infra,
      mode: opts.modeOf?.(context) ?? 'normal',
    });
  }
  return specs;
}
