// The admission webhook's own HTTPS listener: POST /admission/<cellID> with an
// AdmissionReview v1 for pods DELETE or pods/eviction CREATE. A malformed review gets
// 400; any internal error 500 (so failurePolicy Fail keeps the pod); otherwise 200 with
// the decision. The serving certificate comes from a CA generated at start.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import { createCertificateAuthority } from '../../lib/pki/certificates.js';
import type { Admission, AdmissionAnswer } from './admission.js';
import type { ProtectionMetrics } from './metrics.js';

const review = z.object({
  apiVersion: z.literal('admission.k8s.io/v1', { error: 'apiVersion: must be admission.k8s.io/v1' }),
  kind: z.literal('AdmissionReview', { error: 'kind: must be AdmissionReview' }),
  request: z.object(
    {
      uid: z.string({ error: 'request.uid: required' }).min(1, 'request.uid: required'),
      resource: z.object({ group: z.string(), version: z.string(), resource: z.string() }),
      subResource: z.string().optional(),
      name: z.string().optional(),
      namespace: z.string().optional(),
      operation: z.string(),
      userInfo: z.object({ username: z.string().optional() }).passthrough().optional(),
      object: z.any().optional(),
      oldObject: z.any().optional(),
      dryRun: z.boolean().optional(),
      options: z.any().optional(),
    },
    { error: 'request: required' },
  ),
});

export type Review = z.infer<typeof review>;

export interface CellClient {
  id: string;
  core: k8s.CoreV1Api;
}

export interface WebhookServer {
  url: string;
  port: number;
  caPem: string;
  stop(): Promise<void>;
}

const dryRunIn = (o: unknown) => Array.isArray((o as any)?.dryRun) && (o as any).dryRun.includes('All');

class BadReview extends Error {}

/** The pod a review is about, and what it asks; undefined: not ours to judge (allowed). */
async function interpret(r: Review['request'], cells: Map<string, CellClient>, cellId: string) {
  const isPods = r.resource.group === '' && r.resource.resource === 'pods';
  if (isPods && r.operation === 'DELETE' && !r.subResource) {
    if (!r.oldObject || typeof r.oldObject !== 'object')
      throw new BadReview('request.oldObject: missing in a DELETE review');
    return {
      operation: 'DELETE' as const,
      pod: r.oldObject as k8s.V1Pod,
      dryRun: !!r.dryRun || dryRunIn(r.options),
    };
  }
  if (isPods && r.operation === 'CREATE' && r.subResource === 'eviction') {
    const eviction = r.object as {
      metadata?: { annotations?: Record<string, string> };
      deleteOptions?: unknown;
    };
    if (!eviction || typeof eviction !== 'object')
      throw new BadReview('request.object: missing in an eviction review');
    const cell = cells.get(cellId)!;
    try {
      const pod = await cell.core.readNamespacedPod({ name: r.name ?? '', namespace: r.namespace ?? '' });
      return {
        operation: 'EVICT' as const,
        pod,
        // a real API server does not reflect the Eviction's own deleteOptions.dryRun in the review
        dryRun: !!r.dryRun || dryRunIn(eviction.deleteOptions),
        evictionAnnotations: eviction.metadata?.annotations,
      };
    } catch (e) {
      if ((e as { code?: number }).code === 404) return { notFound: `pods "${r.name}" not found` };
      throw e;
    }
  }
  return undefined;
}

function answer(uid: string, a: Pick<AdmissionAnswer, 'allowed' | 'code' | 'message' | 'warnings'>) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid,
      allowed: a.allowed,
      ...(a.allowed ? {} : { status: { code: a.code, message: a.message } }),
      ...(a.warnings?.length ? { warnings: a.warnings } : {}),
    },
  };
}

function timeoutOf(url: URL) {
  const m = /^(\d+)s$/.exec(url.searchParams.get('timeout') ?? '');
  return (m ? Number(m[1]) : 10) * 1000;
}

export async function startWebhook(opts: {
  admission: Admission;
  cells: Map<string, CellClient>;
  metrics: ProtectionMetrics;
  port: number;
  host: string;
  /** names the serving certificate must carry besides the host */
  hosts?: string[];
  log?: (m: string) => void;
}): Promise<WebhookServer> {
  const log = opts.log ?? (() => undefined);
  const ca = await createCertificateAuthority('palisade-webhook-ca');
  const names = [...new Set(['localhost', '127.0.0.1', opts.host, ...(opts.hosts ?? [])])].filter(
    (h) => h !== '0.0.0.0' && h !== '::',
  );
  const leaf = await ca.issueServing('palisade-webhook', names);
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const send = (code: number, body: unknown) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(code, {
        'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    const url = new URL(req.url ?? '/', 'https://webhook');
    const m = /^\/admission\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'POST' || !m) return send(404, 'not found: POST /admission/<cellID>');
    const cellId = decodeURIComponent(m[1]);
    if (!opts.cells.has(cellId)) return send(404, `unknown cell "${cellId}"`);
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const started = process.hrtime.bigint();
      void handle(Buffer.concat(chunks).toString('utf8'), cellId, timeoutOf(url)).then(
        ([code, body, isProtected]) => {
          opts.metrics.admissionSeconds.observe(
            { cell: cellId, protected: String(isProtected) },
            Number(process.hrtime.bigint() - started) / 1e9,
          );
          send(code, body);
        },
      );
    });
  });

  async function handle(
    text: string,
    cellId: string,
    timeoutMs: number,
  ): Promise<[number, unknown, boolean]> {
    let parsed: Review;
    try {
      const r = review.safeParse(JSON.parse(text));
      if (!r.success) return [400, `malformed AdmissionReview: ${r.error.issues[0]?.message}`, false];
      parsed = r.data;
    } catch (e) {
      return [400, `error parsing JSON body: ${(e as Error).message}`, false];
    }
    const req = parsed.request;
    try {
      const subject = await interpret(req, opts.cells, cellId);
      if (!subject) return [200, answer(req.uid, { allowed: true }), false];
      if ('notFound' in subject)
        return [200, answer(req.uid, { allowed: false, code: 404, message: subject.notFound }), false];
      const a = await opts.admission.decide({
        cellId,
        operation: subject.operation,
        pod: subject.pod,
        dryRun: subject.dryRun,
        evictionAnnotations: 'evictionAnnotations' in subject ? subject.evictionAnnotations : undefined,
        user: req.userInfo?.username ?? '',
        deadline: Date.now() + Math.max(500, timeoutMs - 500),
      });
      if (a.protectors.length)
        opts.metrics.admissions.inc({
          cell: cellId,
          result: a.allowed ? 'allowed' : a.code === 409 ? 'retry' : 'denied',
          code: String(a.allowed ? 200 : a.code),
          dry_run: String(subject.dryRun),
        });
      return [200, answer(req.uid, a), a.protectors.length > 0];
    } catch (e) {
      if (e instanceof BadReview) return [400, `malformed AdmissionReview: ${e.message}`, false];
      opts.metrics.admissions.inc({ cell: cellId, result: 'error', code: '500', dry_run: 'false' });
      log(`admission error in cell ${cellId}: ${(e as Error).message}`);
      // fail closed: the API server's failurePolicy Fail keeps the pod
      return [500, `server internal error: ${(e as Error).message}`, true];
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  return {
    url: `https://${shownHost}:${port}`,
    port,
    caPem: ca.certPem,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
