// Palisade's own records, told apart from Events anyone can create. Whoever may create Events
// in a namespace may write one with source "palisade-console" and a guarded action's reason and
// message ("Force delete pod | safe | by: admin | ..."); the Audit page and the history must not
// take that for an action Palisade recorded. So Palisade seals the Events it writes for people's
// actions: an annotation with an HMAC-SHA256, under the install's audit key (kept beside the
// session key, never in a browser), over every field the audit reads and the time it happened.
// An Event without a seal that checks out is no audit row, whatever it says. Pure.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SEAL_ANNOTATION = 'palisade.dev/seal';

export interface SealedFields {
  namespace: string;
  name: string;
  reason?: string;
  message?: string;
  type?: string;
  involved: { kind?: string; namespace?: string; name?: string; uid?: string };
}

const macOf = (f: SealedFields, at: number, key: Buffer) =>
  createHmac('sha256', key)
    .update(
      JSON.stringify([
        'palisade audit v1',
        at,
        f.namespace,
        f.name,
        f.reason ?? '',
        f.message ?? '',
        f.type ?? '',
        f.involved.kind ?? '',
        f.involved.namespace ?? '',
        f.involved.name ?? '',
        f.involved.uid ?? '',
      ]),
    )
    .digest('base64url');

/** The seal annotation's value for an Event recording something that happened at `at` (ms). */
export function sealAudit(f: SealedFields, at: number, key: Buffer): string {
  return `v1.${at}.${macOf(f, at, key)}`;
}

/** When the sealed record says it happened, if the seal checks out for these fields; else undefined. */
export function checkAuditSeal(
  f: SealedFields,
  seal: string | undefined,
  key: Buffer | undefined,
): number | undefined {
  if (!seal || !key) return undefined;
  const m = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(seal);
  if (!m) return undefined;
  const at = Number(m[1]);
  const got = Buffer.from(m[2]);
  const want = Buffer.from(macOf(f, at, key));
  return got.length === want.length && timingSafeEqual(got, want) ? at : undefined;
}

/** The sealed fields of an Event as written (a core/v1 Event, before it is sent). */
export function fieldsOfEvent(e: {
  metadata?: { namespace?: string; name?: string };
  reason?: string;
  message?: string;
  type?: string;
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string };
}): SealedFields {
  const io = e.involvedObject ?? {};
  return {
    namespace: e.metadata?.namespace ?? '',
    name: e.metadata?.name ?? '',
    reason: e.reason,
    message: e.message,
    type: e.type,
    involved: { kind: io.kind, namespace: io.namespace, name: io.name, uid: io.uid },
  };
}

/** The Event with Palisade's seal among its annotations (given the audit key; else as it is). */
export function withAuditSeal<
  E extends { metadata?: { namespace?: string; name?: string; annotations?: Record<string, string> } },
>(e: E, at: number, key: Buffer | undefined): E {
  if (!key) return e;
  const seal = sealAudit(fieldsOfEvent(e as Parameters<typeof fieldsOfEvent>[0]), at, key);
  return {
    ...e,
    metadata: { ...e.metadata, annotations: { ...e.metadata?.annotations, [SEAL_ANNOTATION]: seal } },
  };
}
