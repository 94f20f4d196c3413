// PodProtector, wire-compatible with Podseidon's podseidon.kubewharf.io/v1alpha1 (same JSON
// names, same meaning), validated with zod wherever Palisade reads one: a protector written
// by Podseidon, by kubectl or by a corrupted store must never crash the webhook.
import { z } from 'zod';

export const GROUP = 'podseidon.kubewharf.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const PLURAL = 'podprotectors';

/** Podseidon's annotations and finalizer, and the label Palisade's generator selects on. */
export const ANNOTATIONS = {
  healthCriterion: `${GROUP}/health-criterion`,
  forceDelete: `${GROUP}/force-delete`,
  removeCellOnce: `${GROUP}/remove-cell-once`,
} as const;
export const GENERATOR_FINALIZER = `${GROUP}/generator`;
export const DEFAULT_PROTECT_SELECTOR = `${GROUP}/protect=true`;
export const SOURCE_LABELS = {
  name: `${GROUP}/source-name`,
  group: `${GROUP}/source-group`,
  kind: `${GROUP}/source-kind`,
  resource: `${GROUP}/source-resource`,
} as const;

export const CRITERIA = ['Available', 'Ready', 'Running', 'Scheduled'] as const;
export type Criterion = (typeof CRITERIA)[number];

const int = z.number().int();
const time = z.string();
const labelSelector = z
  .object({
    matchLabels: z.record(z.string(), z.string()).nullish(),
    matchExpressions: z
      .array(z.object({ key: z.string(), operator: z.string(), values: z.array(z.string()).nullish() }))
      .nullish(),
  })
  .passthrough();

export const admissionHistoryConfig = z
  .object({
    maxConcurrentLag: int.nullish(),
    compactThreshold: int.nullish(),
    aggregationRateMillis: int.nullish(),
  })
  .passthrough();

export const bucketSchema = z
  .object({
    startTime: time,
    podName: z.string().nullish(),
    podUID: z.string().nullish(),
    endTime: time.nullish(),
    counter: int.nullish(),
  })
  .passthrough();

export const aggregationSchema = z
  .object({
    totalReplicas: int.default(0),
    availableReplicas: int.default(0),
    readyReplicas: int.default(0),
    scheduledReplicas: int.default(0),
    runningReplicas: int.default(0),
    lastEventTime: time.nullish(),
  })
  .passthrough();

export const cellStatusSchema = z
  .object({
    cellID: z.string(),
    aggregation: aggregationSchema.default({
      totalReplicas: 0,
      availableReplicas: 0,
      readyReplicas: 0,
      scheduledReplicas: 0,
      runningReplicas: 0,
    }),
    admissionHistory: z
      .object({ buckets: z.array(bucketSchema).nullish() })
      .passthrough()
      .nullish(),
  })
  .passthrough();

export const podProtectorSchema = z
  .object({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: z
      .object({
        name: z.string(),
        namespace: z.string(),
        uid: z.string().optional(),
        resourceVersion: z.string().optional(),
        generation: int.optional(),
        creationTimestamp: z.union([time, z.date()]).optional(),
        deletionTimestamp: z.union([time, z.date()]).nullish(),
        labels: z.record(z.string(), z.string()).nullish(),
        annotations: z.record(z.string(), z.string()).nullish(),
        finalizers: z.array(z.string()).nullish(),
      })
      .passthrough(),
    spec: z
      .object({
        minAvailable: int.min(0),
        minReadySeconds: int.min(0).default(0),
        selector: labelSelector,
        aggregationSelector: labelSelector.nullish(),
        admissionHistoryConfig: admissionHistoryConfig.nullish(),
      })
      .passthrough(),
    status: z
      .object({
        cells: z.array(cellStatusSchema).nullish(),
        summary: z.any().optional(),
      })
      .passthrough()
      .nullish(),
  })
  .passthrough();

export type PodProtector = z.infer<typeof podProtectorSchema>;
export type CellStatus = z.infer<typeof cellStatusSchema>;
export type WireBucket = z.infer<typeof bucketSchema>;
export type Aggregation = z.infer<typeof aggregationSchema>;

/** A protector from the wire, or the first problem with it, naming the field. */
export function parseProtector(o: unknown): { ok: true; value: PodProtector } | { ok: false; error: string } {
  const r = podProtectorSchema.safeParse(o);
  if (r.success) return { ok: true, value: r.data };
  const i = r.error.issues[0];
  return { ok: false, error: `${i.path.join('.') || '(root)'}: ${i.message}` };
}

export const protectorKey = (p: { metadata: { namespace: string; name: string } }) =>
  `${p.metadata.namespace}/${p.metadata.name}`;
