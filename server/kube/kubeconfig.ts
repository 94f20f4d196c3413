// Turns a kubeconfig file and the chosen contexts into cluster specs, with startup
// errors that name the file and say what is wrong with it.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
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

/** The context name of the in-cluster configuration (a pod's ServiceAccount). */
export const IN_CLUSTER_CONTEXT = 'in-cluster';
/** Where the kubelet mounts a pod's ServiceAccount token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

type Env = Record<string, string | undefined>;

export interface InClusterOptions {
  env?: Env;
  /** a prefix to the ServiceAccount paths (tests); none in a pod */
  root?: string;
}

const serviceAccountFile = (root: string, name: string) => `${root}${SERVICE_ACCOUNT_DIR}/${name}`;

/** The namespace this pod runs in (its ServiceAccount mount's `namespace`), undefined when unreadable. */
export function podNamespace(opts: InClusterOptions = {}): string | undefined {
  try {
    return readFileSync(serviceAccountFile(opts.root ?? '', 'namespace'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Is this a pod whose ServiceAccount Palisade can use: KUBERNETES_SERVICE_HOST set (the kubelet
 * sets it in every pod) and the ServiceAccount token mounted?
 */
export function inClusterAvailable(opts: InClusterOptions = {}): boolean {
  const env = opts.env ?? process.env;
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(serviceAccountFile(opts.root ?? '', 'token'));
}

/**
 * The one cluster this pod runs in, as context `in-cluster`: the API server at
 * KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, trusted by the ServiceAccount's ca.crt, and the
 * ServiceAccount token as the credential. client-node's loadFromCluster names the token file
 * rather than its contents, and re-reads it at least every 60 s (its FileAuth), so a token the
 * kubelet rotates is picked up without a restart.
 */
export function clustersInCluster(opts: LoadOptions & InClusterOptions = {}): ClusterSpec[] {
  const env = opts.env ?? process.env;
  const root = opts.root ?? '';
  const where = 'in-cluster configuration';
  if (!env.KUBERNETES_SERVICE_HOST) throw new StartupError(`${where}: KUBERNETES_SERVICE_HOST is not set`);
  if (!env.KUBERNETES_SERVICE_PORT) throw new StartupError(`${where}: KUBERNETES_SERVICE_PORT is not set`);
  for (const name of ['token', 'ca.crt']) {
    const file = serviceAccountFile(root, name);
    try {
      accessSync(file, constants.R_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      throw new StartupError(
        `${where}: cannot read the ServiceAccount's ${name} ${file}: ${reasons[code] ?? (e as Error).message}`,
      );
    }
  }
  const named = [
    ...(opts.contexts ?? []).map((context) => ({ context, field: '--context / clusters[].context' })),
    ...(opts.also ?? []),
  ];
  const other = named.find((n) => n.context !== IN_CLUSTER_CONTEXT);
  if (other)
    throw new StartupError(
      `${other.field}: no kubeconfig was given, so Palisade runs with its ServiceAccount and knows one context, "${IN_CLUSTER_CONTEXT}", not "${other.context}"`,
    );
  // loadFromCluster reads process.env: given an env of its own (tests), lend it for the call
  const loaded = withEnv(env, () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromCluster(root);
    return kc;
  });
  const cluster = loaded.getCurrentCluster()!;
  const user = loaded.getCurrentUser()!;
  const namespace = loaded.getContextObject(loaded.getCurrentContext())?.namespace;
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: IN_CLUSTER_CONTEXT }],
    users: [{ ...user, name: IN_CLUSTER_CONTEXT }],
    contexts: [
      {
        name: IN_CLUSTER_CONTEXT,
        cluster: IN_CLUSTER_CONTEXT,
        user: IN_CLUSTER_CONTEXT,
        ...(namespace ? { namespace: namespace.trim() } : {}),
      },
    ],
    currentContext: IN_CLUSTER_CONTEXT,
  });
  return [
    {
      id: clusterId(IN_CLUSTER_CONTEXT, new Set()),
      context: IN_CLUSTER_CONTEXT,
      kc,
      mode: opts.modeOf?.(IN_CLUSTER_CONTEXT) ?? 'normal',
    },
  ];
}

function withEnv<T>(env: Env, f: () => T): T {
  if (env === process.env) return f();
  const keys = ['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'];
  const saved = keys.map((k) => process.env[k]);
  try {
    for (const k of keys) {
      if (env[k] === undefined) delete process.env[k];
      else process.env[k] = env[k];
    }
    return f();
  } finally {
    keys.forEach((k, i) => {
      if (saved[i] === undefined) delete process.env[k];
      else process.env[k] = saved[i];
    });
  }
}
