// A failed Kubernetes call in the person's words and with the code the transport maps to HTTP:
// only what nobody can act on is an INTERNAL_SERVER_ERROR.
import { describe, expect, it } from 'vitest';
import { fromApi } from './errors.js';

const status = (code: number, message: string) => ({
  code,
  body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message }),
});

describe('fromApi', () => {
  it('a deletion the protection webhook refuses (429) is a precondition, not a server error', () => {
    const e = fromApi(
      status(
        429,
        'admission webhook "podseidon.kubewharf.io" denied the request: PodProtector shop/api reports too few available replicas to admit pod deletion',
      ),
      'Pod api-1',
    );
    expect(e.code).toBe('PRECONDITION_FAILED');
    expect(e.message).toBe(
      'Pod api-1 was refused for now: HTTP 429: admission webhook "podseidon.kubewharf.io" denied the request: PodProtector shop/api reports too few available replicas to admit pod deletion',
    );
  });

  it('keeps the other codes', () => {
    expect(fromApi(status(409, 'conflict'), 'Pod x').code).toBe('CONFLICT');
    expect(fromApi(status(404, 'gone'), 'Pod x').code).toBe('NOT_FOUND');
    expect(fromApi(status(403, 'no'), 'Pod x').code).toBe('FORBIDDEN');
    expect(fromApi(status(422, 'invalid'), 'Pod x').code).toBe('BAD_REQUEST');
    expect(fromApi(status(500, 'broken'), 'Pod x').code).toBe('INTERNAL_SERVER_ERROR');
  });
});
