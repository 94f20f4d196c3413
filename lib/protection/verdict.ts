// Why the deletion webhook answered as it did, as a typed code: the history, the metrics and the
// review read this, never the HTTP status of the answer (which is Podseidon's wire contract:
// 429 too few, 409 the admission buffer full, 400 a bad criterion annotation).

export type AdmissionVerdict =
  /** no PodProtector selects the pod */
  | 'unprotected'
  /** the quota admitted it (or the pod did not count under its criterion) */
  | 'admitted'
  /** the pod was already terminating: its deletion was admitted before */
  | 'already-terminating'
  /** a refusal overridden by podseidon.kubewharf.io/force-delete */
  | 'forced'
  /** refused: the criterion annotation is not one Podseidon knows */
  | 'bad-criterion'
  /** refused: too few replicas count under the criterion */
  | 'too-few'
  /** refused for now: deletions admitted but not yet aggregated fill the buffer; retry */
  | 'buffer-full';

export type Refusal = Extract<AdmissionVerdict, 'bad-criterion' | 'too-few' | 'buffer-full'>;

/** The HTTP status each refusal answers with (Podseidon's). */
export const REFUSAL_CODE: Record<Refusal, number> = {
  'bad-criterion': 400,
  'too-few': 429,
  'buffer-full': 409,
};

export const isRefusal = (v: AdmissionVerdict): v is Refusal => v in REFUSAL_CODE;

/** The webhook metric's result label: allowed, retry (the client tries again) or denied. */
export function metricResult(v: AdmissionVerdict): 'allowed' | 'retry' | 'denied' {
  if (!isRefusal(v)) return 'allowed';
  return v === 'buffer-full' ? 'retry' : 'denied';
}
