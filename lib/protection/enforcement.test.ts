import { describe, expect, it } from 'vitest';
import {
  CALLER_REFUSED,
  decideEnforcement,
  enforcementEvent,
  enforcementMessage,
  PROBE_ANSWER,
  readProbe,
} from './enforcement.js';

describe('readProbe', () => {
  const failed = (why: string) =>
    `Internal error occurred: failed calling webhook "self-probe.palisade.dev": failed to call webhook: ${why}`;
  it.each([
    [
      'a replica answered',
      {
        admitted: false,
        code: 403,
        message: `admission webhook "self-probe.palisade.dev" denied the request: ${PROBE_ANSWER} r1 (cell a)`,
      },
      'reached',
    ],
    [
      'the caller refused for its certificate (kube-apiserver keeps the 403 text)',
      {
        admitted: false,
        code: 500,
        message: failed(`${CALLER_REFUSED} (no-certificate): no client certificate`),
      },
      'unauthenticated',
    ],
    [
      'no replica listening',
      {
        admitted: false,
        code: 500,
        message: failed(
          'Post "https://x/admission/a?timeout=10s": dial tcp 10.0.0.1:8443: connect: connection refused',
        ),
      },
      'unreachable',
    ],
    [
      'no endpoints behind the Service',
      {
        admitted: false,
        code: 500,
        message: failed(
          'Post "https://palisade-webhook.palisade-system.svc:443/admission/a?timeout=10s": no endpoints available for service "palisade-webhook"',
        ),
      },
      'unreachable',
    ],
    ['the dry run admitted: no probe webhook', { admitted: true }, 'not-called'],
    [
      'RBAC refused the dry run',
      { admitted: false, code: 403, message: 'pods "palisade-webhook-probe" is forbidden' },
      'error',
    ],
  ] as const)('%s: %s', (_what, answer, outcome) => {
    expect(readProbe(answer as never).outcome).toBe(outcome);
  });

  it('keeps the reason the API server gave, from the marker on', () => {
    const r = readProbe({
      admitted: false,
      code: 500,
      message: failed(`${CALLER_REFUSED} (untrusted-certificate): client certificate not trusted (X)`),
    });
    expect(r.detail).toBe(`${CALLER_REFUSED} (untrusted-certificate): client certificate not trusted (X)`);
  });
});

describe('decideEnforcement', () => {
  it.each([
    // configured, in force, probe -> policy, state
    ['Fail', 'Ignore', 'reached', 'Fail', 'enforced'],
    ['Fail', 'Fail', 'reached', 'Fail', 'enforced'],
    // not before a replica answered the API server
    ['Fail', 'Ignore', 'unreachable', 'Ignore', 'not-enforced'],
    ['Fail', 'Ignore', 'unauthenticated', 'Ignore', 'not-enforced'],
    ['Fail', 'Ignore', 'not-called', 'Ignore', 'not-enforced'],
    ['Fail', 'Ignore', 'error', 'Ignore', 'not-enforced'],
    // enforced, then an outage: protected deletions fail closed
    ['Fail', 'Fail', 'unreachable', 'Fail', 'enforced-unreachable'],
    ['Fail', 'Fail', 'error', 'Fail', 'enforced-unreachable'],
    // an API server that is never heard: Fail would refuse every protected deletion for good
    ['Fail', 'Fail', 'unauthenticated', 'Ignore', 'not-enforced'],
    // Ignore asked for: Ignore, whatever the probe says
    ['Ignore', 'Fail', 'reached', 'Ignore', 'ignore-configured'],
    ['Ignore', 'Ignore', 'unreachable', 'Ignore', 'ignore-configured'],
  ] as const)(
    'configured %s, in force %s, probe %s: %s (%s)',
    (configured, current, probe, policy, state) => {
      expect(decideEnforcement(configured, current, probe)).toEqual({ policy, state });
    },
  );

  it('tells what to do when the API server is not heard', () => {
    const d = decideEnforcement('Fail', 'Ignore', 'unauthenticated');
    const m = enforcementMessage(d, {
      outcome: 'unauthenticated',
      detail: `${CALLER_REFUSED} (no-certificate): no client certificate`,
    });
    expect(m).toContain('is NOT enforced');
    expect(m).toContain('docs/webhook-client-auth.md');
    expect(m).toContain('(no-certificate)');
  });
});

describe('enforcementEvent', () => {
  it('is about the configuration, Warning unless enforced, the state as its action', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const base = {
      configuration: { name: 'podseidon.kubewharf.io', uid: 'u1' },
      namespace: 'palisade-system',
      cell: 'a',
      message: 'm',
      by: 'r1',
      at,
    };
    const e = enforcementEvent({ ...base, state: 'not-enforced' });
    expect(e).toMatchObject({
      metadata: { namespace: 'palisade-system' },
      involvedObject: { kind: 'ValidatingWebhookConfiguration', name: 'podseidon.kubewharf.io', uid: 'u1' },
      reason: 'WebhookNotEnforced',
      type: 'Warning',
      action: 'not-enforced',
      message: 'cell a: m',
    });
    expect(enforcementEvent({ ...base, state: 'enforced' })).toMatchObject({
      reason: 'WebhookEnforced',
      type: 'Normal',
    });
    expect(enforcementEvent({ ...base, state: 'enforced-unreachable' })).toMatchObject({
      reason: 'WebhookUnreachable',
      type: 'Warning',
    });
  });
});
