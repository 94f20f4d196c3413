import { describe, expect, it } from 'vitest';
import { clusterProblem, explainInformerError } from './clusterProblems';

const headers = '\nBody: undefined\nHeaders: {"connection":"close"}';

describe('explainInformerError', () => {
  it.each([
    [
      `HTTP-Code: 401\nMessage: Unauthorized${headers}`,
      'unauthorized',
      /rejected the kubeconfig's credentials/,
    ],
    [
      `HTTP-Code: 403\nMessage: Forbidden${headers}`,
      'forbidden',
      /may not list and watch pods; grant it in RBAC/,
    ],
    [`HTTP-Code: 404\nMessage: Not Found${headers}`, 'not-found', /does not serve pods/],
    [
      'request to https://10.0.0.1:6443/api/v1/nodes?limit=500 failed, reason: connect ECONNREFUSED 10.0.0.1:6443',
      'unreachable',
      /^API server unreachable at https:\/\/10\.0\.0\.1:6443: ECONNREFUSED$/,
    ],
    ['getaddrinfo ENOTFOUND api.example', 'unreachable', /ENOTFOUND/],
    ['watch went silent', 'unreachable', /went silent/],
    ['request failed, reason: self-signed certificate in certificate chain', 'tls', /TLS failed: .*CA match/],
    [
      `HTTP-Code: 500\nMessage: Internal Server Error${headers}`,
      'other',
      /^HTTP 500: Message: Internal Server Error$/,
    ],
    ['something odd\nmore', 'other', /^something odd$/],
  ])('%j', (raw, kind, text) => {
    const e = explainInformerError(raw, 'pods');
    expect(e.kind).toBe(kind);
    expect(e.text).toMatch(text);
  });
});

describe('clusterProblem', () => {
  const inf = (kind: string, synced: boolean, lastError?: string) => ({
    kind,
    synced,
    restarts: 1,
    lastError,
  });
  it.each([
    ['no health yet', undefined, undefined],
    ['all synced', { informers: [inf('nodes', true), inf('pods', true)] }, undefined],
    ['synced with an old error', { informers: [inf('nodes', true, 'x')] }, undefined],
    ['not synced, no error yet (still listing)', { informers: [inf('nodes', false)] }, undefined],
  ])('%s: no problem', (_what, health, want) => {
    expect(clusterProblem(health)).toBe(want);
  });

  it('names a shared cause once, with every kind it hit', () => {
    const p = clusterProblem({
      informers: [inf('nodes', false, 'down'), inf('pods', false, 'down'), inf('events', true)],
    });
    expect(p).toEqual({ kinds: ['nodes', 'pods'], text: 'down' });
  });

  it('leads with the most common cause when they differ', () => {
    const p = clusterProblem({
      informers: [
        inf('nodes', false, 'forbidden'),
        inf('pods', false, 'forbidden'),
        inf('pvs', false, 'other'),
      ],
    });
    expect(p?.text).toBe('forbidden (and 1 other error; 2 of 3 informers)');
  });
});
