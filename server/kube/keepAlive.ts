// A small JSON client for hot paths (the webhook's PodProtector status reads and writes)
// that keeps its TLS connections alive. client-node 1.4.0 gives every request a new
// https.Agent, so each call pays a TLS handshake (the storm bench: status writes p50 177 ms
// fresh, 44 ms kept alive); and its node-fetch cannot simply be given a keep-alive agent:
// it reports "Premature close" on chunked responses over reused sockets, which a real
// kube-apiserver sends for any body over 2 KiB. Authentication and TLS come from the
// kubeconfig through client-node itself (applyToHTTPSOptions).
import https from 'node:https';
import type * as k8s from '@kubernetes/client-node';

/** Thrown for a non-2xx answer: `code` is the HTTP status, as client-node's ApiException. */
export class KubeHttpError extends Error {
  constructor(
    readonly code: number,
    readonly body: unknown,
    what: string,
  ) {
    const msg = (body as { message?: string })?.message;
    super(`${what}: HTTP ${code}${msg ? `: ${msg}` : ''}`);
  }
}

/** a reused idle socket the server had already closed: the request never reached it */
const staleSocket = (e: NodeJS.ErrnoException, reused: boolean) =>
  reused && (e.code === 'ECONNRESET' || e.code === 'EPIPE');

export class KeepAliveJson {
  private readonly agent = new https.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly kc: k8s.KubeConfig) {}

  async request<T = unknown>(method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown): Promise<T> {
    const server = this.kc.getCurrentCluster()?.server;
    if (!server) throw new Error('kubeconfig has no current cluster');
    const opts: https.RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const text = body === undefined ? undefined : JSON.stringify(body);
    return this.send<T>(new URL(path, server), method, opts, text, false);
  }

  private send<T>(
    url: URL,
    method: string,
    opts: https.RequestOptions,
    text: string | undefined,
    fresh: boolean,
  ): Promise<T> {
    const what = `${method} ${url.pathname}`;
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        url,
        {
          ...opts,
          method,
          agent: fresh ? false : this.agent,
          headers: {
            ...opts.headers,
            accept: 'application/json',
            ...(text !== undefined && {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(text),
            }),
          },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = raw ? JSON.parse(raw) : undefined;
            } catch {
              parsed = { message: raw.slice(0, 200) };
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(parsed as T);
            else reject(new KubeHttpError(status, parsed, what));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${what}: timed out`)));
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (!fresh && staleSocket(e, req.reusedSocket))
          return resolve(this.send<T>(url, method, opts, text, true));
        reject(e);
      });
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
