// A bare HTTPS client for the demo cluster's Kubernetes API, from its kubeconfig: the
// runaway client must be as fast as a real misbehaving controller, so it keeps its
// connections alive and sends raw requests (no client-library retries or validation).
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';

export interface KubeResponse {
  status: number;
  body: unknown;
}

export interface KubeHttp {
  request(method: 'GET' | 'DELETE', path: string): Promise<KubeResponse>;
  close(): void;
}

export async function kubeHttp(kubeconfigPath: string, maxSockets = 32): Promise<KubeHttp> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error(`${kubeconfigPath}: no current cluster`);
  const base = new URL(server);
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const agent = new https.Agent({ keepAlive: true, maxSockets, ca: opts.ca, cert: opts.cert, key: opts.key });
  const headers = { ...(opts.headers as Record<string, string>), accept: 'application/json' };

  const request = (method: 'GET' | 'DELETE', path: string) =>
    new Promise<KubeResponse>((ok, fail) => {
      const req = https.request(
        { protocol: base.protocol, hostname: base.hostname, port: base.port, path, method, agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => ok({ status: res.statusCode ?? 0, body: parse(Buffer.concat(chunks)) }));
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end();
    });
  return { request, close: () => agent.destroy() };
}

function parse(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return { message: buf.toString('utf8') };
  }
}

/** The items of a list response (empty on an error status). */
export function itemsOf<T>(r: KubeResponse): T[] {
  if (r.status !== 200) throw new Error(`list failed: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return ((r.body as { items?: T[] }).items ?? []) as T[];
}
