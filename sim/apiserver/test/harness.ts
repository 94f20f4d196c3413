// Test harness: an embedded API server on 127.0.0.1 and client-node clients for it; with
// PALISADE_CLUSTER=real a real etcd + kube-apiserver + kube-controller-manager instead.
import * as k8s from '@kubernetes/client-node';
import { backendFromEnv } from '../../cluster.js';
import type { Durations } from '../../controllers/runtime/durations.js';
import { type RealControlPlane, startRealControlPlane } from '../../real/controlPlane.js';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../index.js';

/** PALISADE_CLUSTER=real: tests run against a real control plane */
export const onRealControlPlane = backendFromEnv() === 'real';

export interface Cluster {
  server: ApiServer | RealControlPlane;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  objects: k8s.KubernetesObjectApi;
  stop(): Promise<void>;
}

export interface ClusterOptions extends ApiServerOptions {
  /** real control plane: the controller manager's node-monitor and detach timings */
  durations?: Durations;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const server = onRealControlPlane
    ? await startRealControlPlane({
        durations: opts.durations,
        defaultTolerationSeconds: opts.defaultTolerationSeconds,
      })
    : await startApiServer({ watchWindow: 1000, bookmarkIntervalMs: 500, ...opts });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await serviceAccountReady(core, 'default').catch(async (e) => {
    await server.stop();
    throw e;
  });
  return {
    server,
    kc,
    core,
    apps: kc.makeApiClient(k8s.AppsV1Api),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    stop: () => server.stop(),
  };
}

/**
 * On a real control plane kube-controller-manager creates a namespace's "default"
 * ServiceAccount a moment after the namespace, and kube-apiserver refuses pods (403 "error
 * looking up service account") until then. The embedded API server needs none.
 */
export async function serviceAccountReady(core: k8s.CoreV1Api, namespace: string) {
  if (!onRealControlPlane) return;
  await eventually(
    () => core.readNamespacedServiceAccount({ name: 'default', namespace }),
    `ServiceAccount ${namespace}/default`,
    30_000,
  );
}

/** Create a namespace that is ready for pods on either back end. */
export async function createNamespace(
  c: Pick<Cluster, 'core'>,
  name: string,
  labels?: Record<string, string>,
) {
  const ns = await c.core.createNamespace({ body: { metadata: { name, labels } } });
  await serviceAccountReady(c.core, name);
  return ns;
}

/** The metav1.Status a failed client-node call carried, plus its HTTP code. */
export async function failure(p: Promise<unknown>): Promise<{ code: number; status: any }> {
  try {
    await p;
  } catch (e: any) {
    if (e instanceof k8s.ApiException) {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      return { code: e.code, status: body };
    }
    throw e;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/** Wait until check() returns a truthy value (generous deadline, no fixed sleeps). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  what = 'condition',
  timeoutMs = 15_000,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as Truthy<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A read-modify-write, again while it is refused with 409 Conflict (another writer moved the
 * object between the read and the write); any other error fails at once.
 */
export async function untilNoConflict<T>(write: () => Promise<T>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await write();
    } catch (e) {
      if ((e as { code?: number }).code !== 409 || Date.now() > deadline)
        throw new Error(`${what}: ${(e as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const podSpec = (name: string, extra: Partial<k8s.V1Pod> = {}): k8s.V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'web' }, ...(extra.metadata ?? {}) },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...(extra.spec ?? {}) },
});

/** Raw HTTPS request with the admin token, for shapes client-node will not send. */
export async function raw(
  c: Cluster,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  const { request } = await import('node:https');
  return new Promise<{ code: number; body: any; text: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const u = new URL(c.server.url + path);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          method,
          ca: c.server.caPem,
          headers: {
            authorization: `Bearer ${c.server.token}`,
            'content-type': 'application/json',
            // Node does not frame a DELETE body by itself: without a length it is never sent
            ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            let parsed: any;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            resolve({ code: res.statusCode ?? 0, body: parsed, text, headers: res.headers });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

/** the embedded API server, for tests that look inside it (skipped on the real one) */
export function embeddedServer(c: Cluster): ApiServer {
  if (!('core' in c.server)) throw new Error('this test needs the embedded API server');
  return c.server;
}

/** the store's current resourceVersion: the embedded store's counter, or a list's (etcd's revision) */
export async function currentRv(c: Cluster): Promise<string> {
  if ('core' in c.server) return String(c.server.core.store.currentRv());
  const list = await c.core.listNamespacedConfigMap({ namespace: 'default', limit: 1 });
  return list.metadata!.resourceVersion!;
}
