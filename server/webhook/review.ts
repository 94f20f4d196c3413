// One AdmissionReview v1 codec for every webhook Palisade serves (pod deletions, NodeFence
// approvals, FencePolicy writes, leader epochs): the envelope each handler's own request shape
// sits in, the one way a review is parsed (malformed: HTTP 400 naming the field, as
// kube-apiserver's own webhooks answer) and the one way an answer is written. Each handler keeps
// only its request shape and its decision.
import { z } from 'zod';

/** The AdmissionReview envelope around a handler's request shape. */
export function admissionReview<R extends z.ZodType>(request: R) {
  return z.object({
    apiVersion: z.literal('admission.k8s.io/v1', { error: 'apiVersion: must be admission.k8s.io/v1' }),
    kind: z.literal('AdmissionReview', { error: 'kind: must be AdmissionReview' }),
    request,
  });
}

/** "request.uid: required" from zod's first issue (a handler may word its own). */
export const firstIssue = (e: z.ZodError) => `${e.issues[0]?.path.join('.')}: ${e.issues[0]?.message}`;

export type ParsedReview<T> = { ok: true; review: T } | { ok: false; answer: [400, string] };

/** Parse one review's text; a body that is not JSON or not a review of this shape is a 400. */
export function parseReview<S extends z.ZodType>(
  schema: S,
  text: string,
  describe: (e: z.ZodError) => string = firstIssue,
): ParsedReview<z.infer<S>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, answer: [400, `error parsing JSON body: ${(e as Error).message}`] };
  }
  const r = schema.safeParse(json);
  return r.success
    ? { ok: true, review: r.data }
    : { ok: false, answer: [400, `malformed AdmissionReview: ${describe(r.error)}`] };
}

/** Why a review is refused: the Status the API server hands the writer. */
export interface Refusal {
  code: number;
  reason?: string;
  message: string;
  /** passed through to the writer's error (e.g. the stale-epoch cause the leader branches on) */
  details?: { causes: { reason: string; field?: string; message?: string }[] };
}

/** The AdmissionReview answer: admitted, or refused with a Status; warnings reach kubectl either way. */
export function admissionAnswer(uid: string, refusal?: Refusal, warnings?: readonly string[]) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid,
      allowed: !refusal,
      ...(refusal ? { status: refusal } : {}),
      ...(warnings?.length ? { warnings } : {}),
    },
  };
}
