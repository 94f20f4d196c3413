// The rules replicas follow when they share browser sessions through a store (Kubernetes
// Secrets): the stored record's format, when a replica writes "still in use" back (not on every
// request: on every replica a session's idle deadline is judged from a copy at most one touch
// interval old, so the idle limit gets that much slack, never less), which replica renews an
// OIDC session (the one whose claim wins the compare-and-swap; a claim expires so a replica
// that died mid-refresh does not block the others for good), and why a vanished record ended.
// Pure: the server's store and its tests share one rule.
import { z } from 'zod';
import { type SessionLimits, sessionState } from './session.js';

export type EndReason = 'idle' | 'absolute' | 'signed-out' | 'refresh-failed';

const principal = z.object({
  username: z.string().min(1),
  uid: z.string().optional(),
  groups: z.array(z.string()),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});

const credential = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('console') }),
  z.object({ kind: z.literal('token'), token: z.string().min(1) }),
  z.object({ kind: z.literal('impersonate'), as: principal }),
]);

export const sessionRecordSchema = z.object({
  v: z.literal(1),
  method: z.enum(['token', 'oidc', 'link', 'bearer']),
  credential,
  /** [cluster, who the person is there] */
  principals: z.array(z.tuple([z.string(), principal])),
  createdAt: z.number().int().nonnegative(),
  lastSeenAt: z.number().int().nonnegative(),
  oidc: z
    .object({
      refreshToken: z.string().optional(),
      idToken: z.string().optional(),
      expiresAt: z.number().optional(),
      issuedAt: z.number().optional(),
    })
    .optional(),
  /** a replica renewing the OIDC tokens now, until when its claim holds */
  refreshing: z.object({ by: z.string(), until: z.number() }).optional(),
  /** set just before the record is deleted, when the reason cannot be told from the times */
  ended: z.enum(['idle', 'absolute', 'signed-out', 'refresh-failed']).optional(),
});

export type SessionRecord = z.infer<typeof sessionRecordSchema>;

export function encodeRecord(r: SessionRecord): string {
  return JSON.stringify(r);
}

/** A stored record, or why it is unusable (never echoing its content: it holds credentials). */
export function decodeRecord(
  text: string,
): { ok: true; record: SessionRecord } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const parsed = sessionRecordSchema.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data };
  const i = parsed.error.issues[0];
  return { ok: false, error: `${i.path.join('.') || '(root)'}: ${i.message}` };
}

/** How often a replica writes a session's last activity back: 1/20 of the idle limit, 1–30 s. */
export function touchIntervalMs(limits: SessionLimits): number {
  return Math.min(30_000, Math.max(1_000, Math.floor(limits.idleMs / 20)));
}

/** The limits every replica judges a shared session by: idle gets one touch interval of slack. */
export function sharedLimits(limits: SessionLimits): SessionLimits {
  return { idleMs: limits.idleMs + touchIntervalMs(limits), absoluteMs: limits.absoluteMs };
}

/** Write "still in use" back when the stored copy is a touch interval behind this replica's. */
export function touchDue(storedLastSeenAt: number, localLastSeenAt: number, limits: SessionLimits): boolean {
  return localLastSeenAt - storedLastSeenAt >= touchIntervalMs(limits);
}

/** renew a minute before the ID token expires (half its life, for short-lived tokens) */
export function oidcRenewDue(oidc: SessionRecord['oidc'], now: number): boolean {
  if (!oidc?.expiresAt) return false;
  const lifetime = oidc.expiresAt - (oidc.issuedAt ?? now);
  return oidc.expiresAt - now < Math.min(60_000, lifetime / 2);
}

/** How long a refresh claim holds: longer than a refresh takes, short enough to recover from a crash. */
export const REFRESH_CLAIM_MS = 30_000;

export type ClaimDecision = 'claim' | 'not-due' | 'held';

/** Whether this replica should claim the record's refresh now. */
export function claimDecision(r: SessionRecord, now: number): ClaimDecision {
  if (r.method !== 'oidc' || !oidcRenewDue(r.oidc, now)) return 'not-due';
  if (r.refreshing && r.refreshing.until > now) return 'held';
  return 'claim';
}

/** Why a record that vanished from the store ended, as the replicas that did not end it tell it. */
export function endedReason(r: SessionRecord, now: number, limits: SessionLimits): EndReason {
  if (r.ended) return r.ended;
  const state = sessionState(r, now, sharedLimits(limits));
  return state.alive ? 'signed-out' : state.ended;
}
