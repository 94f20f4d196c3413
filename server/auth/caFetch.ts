// A fetch for openid-client that trusts the CAs of a PEM file (auth.oidc.caFile) besides
// Node's own: Node's global fetch takes no CA option, so this one goes through node:https.
import https from 'node:https';

type FetchOptions = { body?: unknown; headers: Record<string, string>; method: string; signal?: AbortSignal };

export function fetchTrusting(ca: string) {
  const agent = new https.Agent({ keepAlive: true, ca });
  return (url: string, o: FetchOptions): Promise<Response> =>
    new Promise((resolve, reject) => {
      const body =
        o.body === undefined || o.body === null
          ? undefined
          : o.body instanceof URLSearchParams
            ? o.body.toString()
            : String(o.body);
      const headers: Record<string, string> = { ...o.headers };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const req = https.request(url, { method: o.method, headers, agent, signal: o.signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
          const status = res.statusCode ?? 500;
          const empty = status === 204 || status === 304;
          resolve(
            new Response(empty ? null : Buffer.concat(chunks), {
              status,
              statusText: res.statusMessage,
              headers: h,
            }),
          );
        });
      });
      req.on('error', reject);
      req.end(body);
    });
}
