// A lean JSON-over-HTTPS client for the kubelets' most frequent calls (Lease renewals,
// node and pod status patches). client-node builds each request through typed
// (de)serialisers and node-fetch, which at 5000 nodes costs more CPU than the API
// server spends answering. Same API, same kubeconfig credentials, same wire format;
// errors carry the HTTP status as `code`, as client-node's ApiException does.
import https from 'node:https';
import type * as k8s from '@kubernetes/client-node';

export class LeanApiError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`HTTP ${code}: ${body.slice(0, 200)}`);
  }
}

export const MERGE_PATCH = 'application/merge-patch+json';

export class LeanClient {
  private readonly server: URL;
  private readonly options: Promise<https.RequestOptions>;

  constructor(kc: k8s.KubeConfig, maxSockets: number) {
    this.server = new URL(kc.getCurrentCluster()!.server);
    this.options = (async () => {
      // CA, client certificate and Authorization header, as client-node would send them
      const opts: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(opts);
      opts.agent = new https.Agent({
        keepAlive: true,
        maxSockets,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
      });
      return opts;
    })();
  }

  patch(path: string, body: unknown): Promise<unknown> {
    return this.send('PATCH', path, body, MERGE_PATCH);
  }

  post(path: string, body: unknown): Promise<unknown> {
    return this.send('POST', path, body, 'application/json');
  }

  private async send(method: string, path: string, body: unknown, type: string): Promise<unknown> {
    const base = await this.options;
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          ...base,
          method,
          hostname: this.server.hostname,
          port: this.server.port,
          path,
          headers: {
            ...(base.headers as Record<string, string>),
            accept: 'application/json',
            'content-type': type,
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve(text ? JSON.parse(text) : undefined);
            else reject(new LeanApiError(code, text));
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}
