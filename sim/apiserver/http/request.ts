// Request plumbing: bodies, query options and rendering responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import YAML from 'yaml';
import type { DeleteOptions } from '../core/deletion.js';
import { type OptionsKind, dryRunRequested } from '../core/dryRun.js';
import { StatusError, errors } from './errors.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseBody(buf: Buffer, contentType: string | undefined): unknown {
  const text = buf.toString('utf8');
  const type = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  try {
    if (type === 'application/yaml' || type === 'application/apply-patch+yaml') return YAML.parse(text);
    return JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`the body of the request could not be decoded: ${(e as Error).message}`);
  }
}

export function parseDryRun(q: URLSearchParams, kind: OptionsKind): boolean {
  return dryRunRequested(q.getAll('dryRun'), kind);
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw errors.badRequest(`${name}: invalid value "${v}": must be an integer`);
  return n;
}

export function queryInt(q: URLSearchParams, name: string) {
  return intParam(q, name);
}

/** DeleteOptions from the body and/or query parameters (kubectl sends a body). */
export function deleteOptions(body: unknown, q: URLSearchParams, dryRun: boolean): DeleteOptions {
  const o: DeleteOptions = typeof body === 'object' && body !== null ? { ...(body as DeleteOptions) } : {};
  const grace = intParam(q, 'gracePeriodSeconds');
  if (grace !== undefined) o.gracePeriodSeconds = grace;
  const prop = q.get('propagationPolicy');
  if (prop) o.propagationPolicy = prop as DeleteOptions['propagationPolicy'];
  if (q.get('orphanDependents')) o.orphanDependents = q.get('orphanDependents') === 'true';
  if (o.propagationPolicy && !['Orphan', 'Background', 'Foreground'].includes(o.propagationPolicy)) {
    throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [
      {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${o.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`,
        field: 'propagationPolicy',
      },
    ]);
  }
  if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds < 0) o.gracePeriodSeconds = 1;
  if (dryRun) o.dryRun = ['All'];
  return o;
}

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  warnings: string[] = [],
  extraHeaders: Record<string, string> = {},
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  // a length instead of chunked encoding: node-fetch 2 (client-node's transport) reports a
  // false "Premature close" for chunked responses on a kept-alive socket that an agent
  // hands straight to a queued request (node-fetch#1767)
  const headers: Record<string, string | string[]> = {
    'content-type': 'application/json',
    'cache-control': 'no-cache, private',
    'content-length': String(Buffer.byteLength(text)),
  };
  if (warnings.length) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, { ...headers, ...extraHeaders });
  res.end(text);
}

export function sendError(res: ServerResponse, e: unknown) {
  const err = e instanceof StatusError ? e : errors.internal((e as Error)?.message ?? String(e));
  if (!(e instanceof StatusError) && process.env.PALISADE_DEBUG) console.error(e);
  if (res.headersSent) {
    res.end();
    return;
  }
  // kube-apiserver turns a Status' retryAfterSeconds into a Retry-After header
  const retry = err.details?.retryAfterSeconds;
  sendJson(res, err.code, err.toStatus(), [], retry ? { 'retry-after': String(retry) } : {});
}
