// One AdmissionReview v1 (pods DELETE, pods/eviction CREATE) from its text to the HTTP
// answer, apart from the listener so it can be driven directly (tests, fuzzing): 400 for a
// malformed review, 500 for an internal error (failurePolicy Fail keeps the pod), otherwise
// 200 with an AdmissionResponse carrying the request's uid. A dry-run deletion of the probe pod
// (the leader's self-probe through the API server) is refused with this replica's name.
import type { Handler } from '../webhook/handler.js';
import { metricResult } from '../../lib/protection/verdict.js';
import type * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import type { AdmissionAnswer, AdmissionInput } from './admission.js';
import type { ProtectionMetrics } from './metrics.js';
import { PROBE_ANSWER } from '../../lib/protection/enforcement.js';
import { PROBE_LABEL } from './register.js';
import { component, type Logger } from '../log.js';
import { isNotFound } from '../../lib/kube/errorText.js';
import { admissionAnswer, admissionReview, parseReview } from '../webhook/review.js';

const review = admissionReview(
  z.object(
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
);

export type Review = z.infer<typeof review>;

// The parts of a pod (and of an Eviction) the decision reads, checked before it reads them:
// a wrong type there is a malformed review (400, and failurePolicy Fail keeps the pod), never
// a pod judged on fields read as something else. Go's zero time marshals as null: allowed.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const time = z
  .string({ error: 'must be a time' })
  .refine((t) => RFC3339.test(t) && !Number.isNaN(Date.parse(t)), 'must be an RFC 3339 time');
const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), {
  error: 'must be a map of strings',
});
const optional = <T extends z.ZodType>(t: T) => t.nullable().optional();
const objectMeta = z
  .object(
    {
      name: optional(z.string()),
      namespace: optional(z.string()),
      uid: optional(z.string()),
      labels: optional(stringMap),
      annotations: optional(stringMap),
      deletionTimestamp: optional(time),
      deletionGracePeriodSeconds: optional(z.number().int()),
    },
    { error: 'must be an object' },
  )
  .passthrough();
const podShape = z
  .object(
    {
      metadata: objectMeta,
      status: optional(
        z
          .object(
            {
              phase: optional(z.string()),
              conditions: optional(
                z.array(
                  z
                    .object(
                      { type: z.string(), status: z.string(), lastTransitionTime: optional(time) },
                      { error: 'must be an object' },
                    )
                    .passthrough(),
                ),
              ),
            },
            { error: 'must be an object' },
          )
          .passthrough(),
      ),
    },
    { error: 'must be an object' },
  )
  .passthrough();
const evictionShape = z
  .object({ metadata: optional(objectMeta.partial()) }, { error: 'must be an object' })
  .passthrough();

/** the first problem of a parse, as `where.path: message` (messages that name their field kept) */
function problem(where: string, e: z.ZodError) {
  const i = e.issues[0];
  const path = (i?.path ?? []).map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  const field = `${where}${path}`.replace(/^\./, '');
  const message = i?.message ?? 'invalid';
  return !field || message.startsWith(`${field}: `) ? message : `${field}: ${message}`;
}

/** names kube-apiserver gives pods (DNS-1123 subdomains) and namespaces (DNS-1123 labels) */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const validName = {
  name: (n: string) => n.length <= 253 && n.split('.').every((l) => DNS1123_LABEL.test(l)),
  namespace: (n: string) => n.length <= 63 && DNS1123_LABEL.test(n),
};

export interface CellClient {
  id: string;
  core: k8s.CoreV1Api;
}

/** What the handler needs: the decision, the cells' API clients, the metrics. */
export interface ReviewDeps {
  admission: { decide(input: AdmissionInput): Promise<AdmissionAnswer> };
  cells: Map<string, CellClient>;
  metrics: ProtectionMetrics;
  /** the webhook's logger: an internal error is logged (the answer fails closed) */
  log?: Logger;
  /** this replica's name, in the answer to the leader's self-probe */
  identity?: string;
}

/** [HTTP status, body (string: text/plain), whether a protector was consulted] */
export type ReviewResult = [number, unknown, boolean];

const dryRunIn = (o: unknown) => Array.isArray((o as any)?.dryRun) && (o as any).dryRun.includes('All');

class BadReview extends Error {}

/** The pod a review is about, and what it asks; undefined: not ours to judge (allowed). */
async function interpret(r: Review['request'], cells: Map<string, CellClient>, cellId: string) {
  const isPods = r.resource.group === '' && r.resource.resource === 'pods';
  if (isPods && r.operation === 'DELETE' && !r.subResource) {
    if (!r.oldObject || typeof r.oldObject !== 'object')
      throw new BadReview('request.oldObject: missing in a DELETE review');
    const shape = podShape.safeParse(r.oldObject);
    if (!shape.success) throw new BadReview(problem('request.oldObject', shape.error));
    // the request names the pod; the old object is its content and must not say otherwise
    const meta = shape.data.metadata;
    for (const field of ['namespace', 'name'] as const)
      if (r[field] && meta[field] && meta[field] !== r[field])
        throw new BadReview(
          `request.oldObject.metadata.${field}: ${JSON.stringify(meta[field])} is not the request's ${JSON.stringify(r[field])}`,
        );
    const pod = {
      ...r.oldObject,
      metadata: {
        ...r.oldObject.metadata,
        namespace: meta.namespace || r.namespace,
        name: meta.name || r.name,
      },
    } as k8s.V1Pod;
    const dryRun = !!r.dryRun || dryRunIn(r.options);
    // the leader's self-probe (enforcement.ts): proof that the API server reached a replica
    if (dryRun && meta.labels?.[PROBE_LABEL] === 'true') return { probe: true as const };
    return { operation: 'DELETE' as const, pod, dryRun };
  }
  if (isPods && r.operation === 'CREATE' && r.subResource === 'eviction') {
    if (!r.object || typeof r.object !== 'object')
      throw new BadReview('request.object: missing in an eviction review');
    const shape = evictionShape.safeParse(r.object);
    if (!shape.success) throw new BadReview(problem('request.object', shape.error));
    // the pod is read by these: only names a real API server sends, never a path of their own
    for (const field of ['namespace', 'name'] as const)
      if (!validName[field](r[field] ?? ''))
        throw new BadReview(
          `request.${field}: ${JSON.stringify((r[field] ?? '').slice(0, 80))} is not a pod's ${field}`,
        );
    const eviction = r.object as {
      metadata?: { annotations?: Record<string, string> };
      deleteOptions?: unknown;
    };
    const cell = cells.get(cellId)!;
    try {
      const pod = await cell.core.readNamespacedPod({ name: r.name!, namespace: r.namespace! });
      return {
        operation: 'EVICT' as const,
        pod,
        // a real API server does not reflect the Eviction's own deleteOptions.dryRun in the review
        dryRun: !!r.dryRun || dryRunIn(eviction.deleteOptions),
        evictionAnnotations: eviction.metadata?.annotations ?? undefined,
      };
    } catch (e) {
      if (isNotFound(e)) return { notFound: `pods "${r.name}" not found` };
      throw e;
    }
  }
  return undefined;
}

function answer(uid: string, a: Pick<AdmissionAnswer, 'allowed' | 'code' | 'message' | 'warnings'>) {
  // no code: 403, as kube-apiserver reads a webhook's refusal without one
  const refusal = a.allowed ? undefined : { code: a.code ?? 403, message: a.message ?? '' };
  return admissionAnswer(uid, refusal, a.warnings);
}

/** Judge one review for `cellId` (a known cell); `timeoutMs` is the API server's wait. */
export async function handleReview(
  deps: ReviewDeps,
  text: string,
  cellId: string,
  timeoutMs: number,
): Promise<ReviewResult> {
  if (!deps.cells.has(cellId)) return [404, `unknown cell "${cellId}"`, false];
  const parsed = parseReview(review, text, (e) => problem('', e));
  if (!parsed.ok) return [...parsed.answer, false];
  const req = parsed.review.request;
  try {
    const subject = await interpret(req, deps.cells, cellId);
    if (!subject) return [200, answer(req.uid, { allowed: true }), false];
    if ('probe' in subject)
      return [
        200,
        answer(req.uid, {
          allowed: false,
          code: 403,
          message: `${PROBE_ANSWER} ${deps.identity ?? 'unnamed'} (cell ${cellId}); a dry run, nothing deleted`,
        }),
        false,
      ];
    if ('notFound' in subject)
      return [200, answer(req.uid, { allowed: false, code: 404, message: subject.notFound }), false];
    const a = await deps.admission.decide({
      cellId,
      operation: subject.operation,
      pod: subject.pod,
      dryRun: subject.dryRun,
      evictionAnnotations: 'evictionAnnotations' in subject ? subject.evictionAnnotations : undefined,
      user: req.userInfo?.username ?? '',
      deadline: Date.now() + Math.max(500, timeoutMs - 500),
    });
    if (a.protectors.length)
      deps.metrics.admissions.inc({
        cell: cellId,
        result: metricResult(a.verdict),
        code: String(a.allowed ? 200 : a.code),
        dry_run: String(subject.dryRun),
      });
    return [200, answer(req.uid, a), a.protectors.length > 0];
  } catch (e) {
    if (e instanceof BadReview) return [400, `malformed AdmissionReview: ${e.message}`, false];
    deps.metrics.admissions.inc({ cell: cellId, result: 'error', code: '500', dry_run: 'false' });
    (deps.log ?? component('webhook')).error(
      { cell: cellId, err: e },
      'admission review failed: denied (fail closed)',
    );
    // fail closed: the API server's failurePolicy Fail keeps the pod
    return [500, `server internal error: ${(e as Error).message}`, true];
  }
}

/** The deletion-protection webhook's Handler (POST /admission/<cellID>): judged, and timed per cell. */
export function admissionHandler(deps: ReviewDeps): Handler {
  return {
    async review(text, cellId, { timeoutMs }) {
      const started = process.hrtime.bigint();
      const [code, body, isProtected] = await handleReview(deps, text, cellId, timeoutMs);
      deps.metrics.admissionSeconds.observe(
        { cell: cellId, protected: String(isProtected) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      return [code, body];
    },
  };
}
