// The infrastructure's own control API (not the Kubernetes API): HTTP on 127.0.0.1
// with a bearer token, JSON in and out, and a live event stream (server-sent events).
// Fault injection, demo flows, fence agents (through the BMC routes) and the checker's
// readers use it.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Violation, ViolationSource } from '../checker/checker.js';
import type { InfraEvent } from './groundTruth.js';
import { InfraError, type Infrastructure } from './infrastructure.js';

export const nodeVerbs = [
  'partition',
  'heal',
  'power-off',
  'power-on',
  'reset',
  'kubelet-crash',
  'kubelet-restart',
  'storage-fence',
  'storage-unfence',
  'meteor',
] as const;
export type NodeVerb = (typeof nodeVerbs)[number];

export interface InfraApi {
  url: string;
  token: string;
  stop(): Promise<void>;
}

const verbBody = z.object({ volume: z.string().min(1).optional() }).strict();

function act(infra: Infrastructure, verb: NodeVerb, node: string, volume?: string) {
  const table: Record<NodeVerb, () => void> = {
    partition: () => infra.partition(node),
    heal: () => infra.heal(node),
    'power-off': () => infra.powerOff(node),
    'power-on': () => infra.powerOn(node),
    reset: () => infra.reset(node),
    'kubelet-crash': () => infra.kubeletCrash(node),
    'kubelet-restart': () => infra.kubeletRestart(node),
    'storage-fence': () => infra.storageFence(node, volume),
    'storage-unfence': () => infra.storageUnfence(node, volume),
    meteor: () => infra.meteor(node),
  };
  table[verb]();
}

/** Every checker's violations, oldest first (ids are shared, so they sort by discovery). */
function violations(checkers: ViolationSource[]): Violation[] {
  return checkers.flatMap((c) => c.list()).sort((a, b) => a.id - b.id);
}

export function status(infra: Infrastructure, checkers: ViolationSource[]) {
  return {
    nodes: infra.list().map((n) => ({
      ...n,
      processes: infra.truth.runningCount(n.name),
      storageFenced: infra.truth.fencedVolumes(n.name),
    })),
    processes: infra.list().reduce((sum, n) => sum + infra.truth.runningCount(n.name), 0),
    violations: violations(checkers).filter((v) => !v.until).length,
  };
}

function send(res: http.ServerResponse, code: number, body: unknown) {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 64 * 1024) throw new InfraError('request body too large', 413);
  }
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InfraError('request body is not JSON', 400);
  }
}

function stream(infra: Infrastructure, req: http.IncomingMessage, res: http.ServerResponse) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.write(': connected\n\n');
  const onEvent = (e: InfraEvent) => res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  infra.truth.on('event', onEvent);
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  req.on('close', () => {
    clearInterval(ping);
    infra.truth.off('event', onEvent);
  });
}

async function route(
  infra: Infrastructure,
  checkers: ViolationSource[],
  req: http.IncomingMessage,
  res: http.ServerResponse,
) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const parts = url.pathname.split('/').filter(Boolean);
  const method = req.method ?? 'GET';
  if (parts[0] !== 'v1') throw new InfraError(`no such path: ${url.pathname}`, 404);
  const [, what, a, b] = parts;
  if (method === 'GET' && what === 'status') return send(res, 200, status(infra, checkers));
  if (method === 'GET' && what === 'processes') {
    const all = url.searchParams.get('all') === 'true';
    const node = url.searchParams.get('node') ?? undefined;
    const list = (all ? infra.truth.all() : infra.truth.running()).filter((p) => !node || p.node === node);
    return send(res, 200, { processes: list });
  }
  if (method === 'GET' && what === 'violations') return send(res, 200, { violations: violations(checkers) });
  if (method === 'GET' && what === 'timeline' && a)
    return send(res, 200, { podUid: a, steps: infra.truth.timeline(a) });
  if (method === 'GET' && what === 'events') return stream(infra, req, res);
  if (what === 'bmc' && a) {
    if (method === 'GET') return send(res, 200, { node: a, power: infra.bmcStatus(a) });
    const action = z.enum(['on', 'off', 'reset']).safeParse(b);
    if (method !== 'POST' || !action.success)
      throw new InfraError('BMC actions: POST /v1/bmc/<node>/on|off|reset', 400);
    if (action.data === 'on') infra.powerOn(a);
    else if (action.data === 'off') infra.powerOff(a);
    else infra.reset(a);
    return send(res, 200, { node: a, power: infra.bmcStatus(a) });
  }
  if (method === 'POST' && what === 'nodes' && a && b) {
    const verb = z.enum(nodeVerbs).safeParse(b);
    if (!verb.success) throw new InfraError(`unknown verb "${b}"; verbs: ${nodeVerbs.join(', ')}`, 400);
    const body = verbBody.safeParse(await readJson(req));
    if (!body.success)
      throw new InfraError(
        `body: ${body.error.issues[0].path.join('.') || '(root)'}: ${body.error.issues[0].message}`,
        400,
      );
    act(infra, verb.data, a, body.data.volume);
    return send(res, 200, { node: infra.node(a) });
  }
  throw new InfraError(`no such route: ${method} ${url.pathname}`, 404);
}

export async function startInfraApi(
  infra: Infrastructure,
  /** the checkers whose violations GET /v1/violations lists */
  checkers: ViolationSource[],
  port = 0,
): Promise<InfraApi> {
  const token = randomBytes(24).toString('hex');
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(res, 401, { error: 'unauthorized: send the token from infra.json as a bearer token' });
    route(infra, checkers, req, res).catch((e) => {
      const code = e instanceof InfraError ? e.code : 500;
      if (!res.headersSent) send(res, code, { error: (e as Error).message });
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
