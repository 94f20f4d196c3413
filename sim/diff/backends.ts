// Differential testing: the same request sequence against the embedded API server and a real
// kube-apiserver (v1.34.10 + kube-controller-manager) started side by side, seen through raw
// HTTPS so that status codes, headers and bodies are compared exactly as a client gets them.
import https from 'node:https';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../apiserver/index.js';
import { type RealControlPlane, startRealControlPlane } from '../real/controlPlane.js';

export interface Backend {
  name: 'embedded' | 'real';
  url: string;
  token: string;
  caPem: string;
  agent: https.Agent;
}

export interface Backends {
  embedded: Backend;
  real: Backend;
  /** the embedded server itself, for tests that must look inside it */
  embeddedServer: ApiServer;
  stop(): Promise<void>;
}

export interface Reply {
  code: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** a client of any server that has an address, a token and a CA (a whole cluster's, too) */
export function backend(name: Backend['name'], s: { url: string; token: string; caPem: string }): Backend {
  const agent = new https.Agent({ keepAlive: true, ca: s.caPem });
  return { name, url: s.url, token: s.token, caPem: s.caPem, agent };
}

/** Start both back ends at once (the real one takes ~5 s, the embedded one ~0.2 s). */
export async function startBackends(opts: ApiServerOptions = {}): Promise<Backends> {
  const [emb, real] = await Promise.allSettled([
    startApiServer(opts),
    startRealControlPlane({
      defaultTolerationSeconds: opts.defaultTolerationSeconds,
      // the same extra users, webhook credentials and CA on both
      tokenAuthFile: opts.tokenAuthFile,
      admissionControlConfigFile: opts.admissionControlConfigFile,
      ca: opts.ca,
    }),
  ]);
  if (emb.status === 'rejected' || real.status === 'rejected') {
    if (emb.status === 'fulfilled') await emb.value.stop();
    if (real.status === 'fulfilled') await real.value.stop();
    throw emb.status === 'rejected' ? emb.reason : (real as PromiseRejectedResult).reason;
  }
  const e = backend('embedded', emb.value);
  const r = backend('real', real.value);
  return {
    embedded: e,
    real: r,
    embeddedServer: emb.value,
    stop: async () => {
      e.agent.destroy();
      r.agent.destroy();
      await Promise.all([emb.value.stop(), (real.value as RealControlPlane).stop()]);
    },
  };
}

/** where and how to send one request to a back end, with its admin token */
function requestOptions(
  b: Backend,
  method: string,
  path: string,
  headers: Record<string, string | undefined>,
): https.RequestOptions {
  const u = new URL(b.url + path);
  return {
    host: u.hostname,
    port: u.port,
    path: u.pathname + u.search,
    method,
    agent: b.agent,
    headers: { authorization: `Bearer ${b.token}`, accept: 'application/json', ...headers },
  };
}

/** One request with the admin token; a JSON body is parsed, anything else kept as text. */
export function call(
  b: Backend,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      requestOptions(b, method, path, {
        'content-type': 'application/json',
        ...(text === undefined ? {} : { 'content-length': String(Buffer.byteLength(text)) }),
        ...headers,
      }),
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (out += d));
        res.on('end', () => {
          let parsed: any;
          try {
            parsed = JSON.parse(out);
          } catch {
            parsed = undefined;
          }
          resolve({ code: res.statusCode ?? 0, headers: res.headers, text: out, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Run the same scenario on both back ends concurrently. */
export async function onBoth<T>(
  bs: Backends,
  scenario: (b: Backend) => Promise<T>,
): Promise<{ embedded: T; real: T }> {
  const [embedded, real] = await Promise.all([scenario(bs.embedded), scenario(bs.real)]);
  // DIFF_DUMP=dir keeps both sides of every scenario, for reading a difference in full
  if (process.env.DIFF_DUMP) {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(process.env.DIFF_DUMP, { recursive: true });
    const file = `${process.env.DIFF_DUMP}/${Date.now()}-${Math.random().toString(36).slice(2, 6)}.json`;
    writeFileSync(
      file,
      JSON.stringify({ embedded, real }, (k, v) => (k === 'agent' ? undefined : v), 2),
    );
  }
  return { embedded, real };
}

export interface WatchRecorder {
  code: number;
  headers: Reply['headers'];
  events: { type: string; object: any }[];
  ended: boolean;
  stop(): void;
}

/** Open a watch and record its events line by line until it ends or stop() is called. */
export function watch(
  b: Backend,
  path: string,
  headers: Record<string, string> = {},
): Promise<WatchRecorder> {
  return new Promise((resolve, reject) => {
    // a watch holds its connection: its own socket, not one of the keep-alive pool's
    const req = https.request(
      { ...requestOptions(b, 'GET', path, headers), agent: undefined, ca: b.caPem },
      (res) => {
        const rec: WatchRecorder = {
          code: res.statusCode ?? 0,
          headers: res.headers,
          events: [],
          ended: false,
          stop: () => req.destroy(),
        };
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (!line) continue;
            try {
              rec.events.push(JSON.parse(line));
            } catch {
              rec.events.push({ type: 'UNPARSABLE', object: line });
            }
          }
        });
        res.on('end', () => {
          const rest = buf.trim();
          if (rest) {
            try {
              rec.events.push(
                rec.code === 200 ? JSON.parse(rest) : { type: 'BODY', object: JSON.parse(rest) },
              );
            } catch {
              rec.events.push({ type: 'UNPARSABLE', object: rest });
            }
          }
          rec.ended = true;
        });
        res.on('error', () => (rec.ended = true));
        resolve(rec);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
