// Turns a kubeconfig file and the chosen contexts into cluster specs, with startup
// errors that name the file and say what is wrong with it.
import { readFile } from 'node:fs/promises';
import { delimiter } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { type KubeconfigDoc, mergeKubeconfigs } from '../../lib/kube/kubeconfigDoc.js';
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
  /** contexts the configuration needs besides those shown (deletion protection's core and cells), each with the field that names it */
  also?: { context: string; field: string }[];
  /** each context's mode (palisade.yaml); normal when not given */
  modeOf?: (context: string) => ClusterMode;
}

interface KubeconfigText {
  text: string;
  /** the file that names this context first: its infra file lies beside it */
  fileOf(context: string): string;
}

/**
 * One file's text, or several (`a:b:c`, as in $KUBECONFIG) merged the way kubectl merges
 * them: the first to name a context, cluster or user wins.
 */
async function readKubeconfigs(path: string): Promise<KubeconfigText> {
  const files = path.split(delimiter).filter(Boolean);
  if (files.length <= 1) return { text: await readKubeconfig(path), fileOf: () => path };
  const docs: KubeconfigDoc[] = [];
  for (const f of files) {
    const text = await readKubeconfig(f);
    try {
      docs.push((YAML.parse(text) ?? {}) as KubeconfigDoc);
    } catch (e) {
      throw new StartupError(`kubeconfig ${f} is not valid: ${(e as Error).message}`);
    }
  }
  return {
    text: YAML.stringify(mergeKubeconfigs(docs)),
    fileOf: (context) =>
      files[docs.findIndex((d) => d.contexts?.some((c) => c.name === context))] ?? files[0],
  };
}

export async function clustersFromKubeconfig(path: string, opts: LoadOptions = {}): Promise<ClusterSpec[]> {
  const { text, fileOf } = await readKubeconfigs(path);
  const kc = parseKubeconfig(path, text);
  const known = kc.getContexts().map((c) => c.name);
  const shown = opts.contexts?.length ? opts.contexts : [kc.getCurrentContext() || known[0]];
  const needed = (opts.also ?? []).filter((a) => !shown.includes(a.context));
  const wanted = [...shown, ...new Set(needed.map((a) => a.context))];
  const taken = new Set<string>();
  const specs: ClusterSpec[] = [];
  for (const context of wanted) {
    if (!known.includes(context)) {
      const field = needed.find((a) => a.context === context)?.field;
      throw new StartupError(
        `${field ? `${field}: ` : ''}kubeconfig ${path} has no context "${context}" (contexts: ${known.join(', ')})`,
      );
    }
    const own = new k8s.KubeConfig();
    own.loadFromString(text);
    own.setCurrentContext(context);
    if (!own.getCurrentCluster())
      throw new StartupError(`kubeconfig ${path}: context "${context}" names no cluster`);
    // ground truth only for embedded clusters, found by the infra file beside their kubeconfig
    const infra = await readInfraFile(fileOf(context), context);
    specs.push({
      id: clusterId(context, taken),
      context,
      kc: own,
      infra,
      ...(infra?.forceDetach ? { forceDetach: infra.forceDetach } : {}),
      mode: opts.modeOf?.(context) ?? 'normal',
    });
  }
  return specs;
}
