// When the pod-deletion webhook may be enforced: the leader's self-probe (a server-side dry-run
// deletion of Palisade's probe pod, through the API server) read as a typed outcome, and the
// failurePolicy the webhook should have given that outcome. Do no harm: the configured policy
// (Fail) only once a replica answered the API server; never while the API server cannot be
// heard (no accepted client certificate: every call would fail, so Fail would refuse every
// protected deletion for good); a Fail already in force stays through an outage it cannot
// tell from a passing one (protected deletions fail closed, as Podseidon's do). Pure.
import type * as k8s from '@kubernetes/client-node';
import { microTime } from './buckets.js';

export type FailurePolicy = 'Fail' | 'Ignore';

/** The text a replica answers the probe with: the leader finds it in the API server's error. */
export const PROBE_ANSWER = 'palisade self-probe: answered by replica';
/** The text of a refused caller's answer (webhook.ts): `<this> (<reason>): <detail>` */
export const CALLER_REFUSED = 'palisade webhook refused the caller';

export type ProbeOutcome =
  /** a replica answered the API server's call */
  | 'reached'
  /** the API server called, but a replica refused its client certificate (or its lack of one) */
  | 'unauthenticated'
  /** the API server could not call any replica (refused, timed out, TLS, no endpoints) */
  | 'unreachable'
  /** the dry run was admitted without the probe's webhook: it is not in the configuration */
  | 'not-called'
  /** the probe request itself failed (RBAC, the API server) */
  | 'error';

export interface ProbeReading {
  outcome: ProbeOutcome;
  /** the part of the API server's answer that says why (for people: never parsed again) */
  detail: string;
}

/**
 * Read the probe's answer: `admitted` when the dry run went through, else the API server's
 * error (its code and message).
 */
export function readProbe(
  answer: { admitted: true } | { admitted: false; code?: number; message: string },
): ProbeReading {
  if (answer.admitted)
    return {
      outcome: 'not-called',
      detail:
        'the dry run was admitted without asking Palisade: the configuration has no self-probe webhook (self-probe.palisade.dev) matching the probe pod',
    };
  const m = answer.message;
  if (m.includes(PROBE_ANSWER)) return { outcome: 'reached', detail: m.slice(m.indexOf(PROBE_ANSWER)) };
  if (m.includes(CALLER_REFUSED))
    return { outcome: 'unauthenticated', detail: m.slice(m.indexOf(CALLER_REFUSED)) };
  if (/failed calling webhook/.test(m)) return { outcome: 'unreachable', detail: m };
  return { outcome: 'error', detail: `${answer.code ?? '?'}: ${m}` };
}

export type EnforcementState =
  /** the configured policy is in force and the last probe reached a replica */
  | 'enforced'
  /** Fail is in force, but the API server did not reach a replica on the last probe */
  | 'enforced-unreachable'
  /** Ignore is in force because the probe has not reached a replica: deletions pass unreviewed when calls fail */
  | 'not-enforced'
  /** the configuration asks for Ignore */
  | 'ignore-configured';

export interface EnforcementDecision {
  /** the failurePolicy the pod-deletion webhook should have now */
  policy: FailurePolicy;
  state: EnforcementState;
}

/** The policy to put in force given what is configured, what is in force, and the probe. */
export function decideEnforcement(
  configured: FailurePolicy,
  current: FailurePolicy | undefined,
  probe: ProbeOutcome,
): EnforcementDecision {
  if (configured === 'Ignore') return { policy: 'Ignore', state: 'ignore-configured' };
  if (probe === 'reached') return { policy: 'Fail', state: 'enforced' };
  // an unauthenticated API server is never heard: Fail would refuse every protected deletion
  if (current === 'Fail' && probe !== 'unauthenticated')
    return { policy: 'Fail', state: 'enforced-unreachable' };
  return { policy: 'Ignore', state: 'not-enforced' };
}

/** One sentence for people: what is in force and what to do (docs/operations.md has the runbook). */
export function enforcementMessage(d: EnforcementDecision, probe: ProbeReading): string {
  switch (d.state) {
    case 'enforced':
      return 'the pod-deletion webhook is enforced (failurePolicy Fail): the API server reached a replica';
    case 'ignore-configured':
      return 'the pod-deletion webhook runs with failurePolicy Ignore (protection.webhook.failurePolicy): while no replica answers, protected pods can be deleted';
    case 'enforced-unreachable':
      return `the pod-deletion webhook is enforced (failurePolicy Fail) but the API server did not reach a replica: deletions of protected pods are refused until it does (${probe.detail})`;
    case 'not-enforced':
      return probe.outcome === 'unauthenticated'
        ? `the pod-deletion webhook is NOT enforced (failurePolicy Ignore): the API server's calls are refused for their client certificate, so protected pods can be deleted unreviewed. Configure the API server's webhook client certificate, or set clientAuth.required false behind a NetworkPolicy (docs/webhook-client-auth.md): ${probe.detail}`
        : `the pod-deletion webhook is NOT enforced (failurePolicy Ignore) until the API server reaches a replica (${probe.outcome}): ${probe.detail}`;
  }
}

export const REASON_ENFORCED = 'WebhookEnforced';
export const REASON_NOT_ENFORCED = 'WebhookNotEnforced';
export const REASON_UNREACHABLE = 'WebhookUnreachable';

/** The Event reason of a state (Warning for every state but enforced). */
export function enforcementReason(state: EnforcementState): { reason: string; type: 'Normal' | 'Warning' } {
  if (state === 'enforced') return { reason: REASON_ENFORCED, type: 'Normal' };
  if (state === 'enforced-unreachable') return { reason: REASON_UNREACHABLE, type: 'Warning' };
  return { reason: REASON_NOT_ENFORCED, type: 'Warning' };
}

/**
 * The Event that tells a change of state, about the ValidatingWebhookConfiguration, in
 * `namespace` (Palisade's own: an object without a namespace has its Events elsewhere).
 */
export function enforcementEvent(o: {
  configuration: { name: string; uid?: string };
  namespace: string;
  cell: string;
  state: EnforcementState;
  message: string;
  by: string;
  at: Date;
}): k8s.CoreV1Event {
  const { reason, type } = enforcementReason(o.state);
  return {
    metadata: {
      name: `${o.configuration.name}.${reason.toLowerCase()}-${o.at.getTime().toString(36)}`,
      namespace: o.namespace,
    },
    involvedObject: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      name: o.configuration.name,
      ...(o.configuration.uid ? { uid: o.configuration.uid } : {}),
    },
    reason,
    type,
    message: `cell ${o.cell}: ${o.message}`.slice(0, 1024),
    source: { component: 'palisade' },
    reportingComponent: 'palisade',
    reportingInstance: o.by.slice(0, 128),
    action: o.state,
    eventTime: microTime(o.at.getTime()) as unknown as k8s.V1MicroTime,
    count: 1,
  };
}
