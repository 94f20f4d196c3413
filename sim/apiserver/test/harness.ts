// Test harness: an embedded API server on 127.0.0.1 and client-node clients for it.
import * as k8s from '@kubernetes/client-node';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../index.js';

export interface Cluster {
  server: ApiServer;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  objects: k8s.KubernetesObjectApi;
  stop(): Promise<void>;
}

export async function startCluster(opts: ApiServerOptions = {}): Promise<Cluster> {
  const server = await startApiServer({ watchWindow: 1000, bookmarkIntervalMs: 500, ...opts });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  return {
    server,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    stop: () => server.stop(),
  };
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
