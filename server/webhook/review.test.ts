import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { admissionAnswer, admissionReview, parseReview } from './review.js';

const schema = admissionReview(z.object({ uid: z.string().min(1), operation: z.string() }));
const text = (v: unknown) => JSON.stringify(v);
const envelope = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' };

describe('parseReview', () => {
  it.each<[string, string, string]>([
    ['not JSON', '{', 'error parsing JSON body: '],
    [
      'another version',
      text({ ...envelope, apiVersion: 'v1beta1', request: {} }),
      'malformed AdmissionReview: apiVersion: ',
    ],
    [
      'no uid',
      text({ ...envelope, request: { operation: 'DELETE' } }),
      'malformed AdmissionReview: request.uid: ',
    ],
  ])('%s: 400 naming the problem', (_what, body, start) => {
    const r = parseReview(schema, body);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.answer[0]).toBe(400);
      expect(r.answer[1].startsWith(start)).toBe(true);
    }
  });

  it('reads a review of the shape', () => {
    expect(parseReview(schema, text({ ...envelope, request: { uid: 'u', operation: 'DELETE' } }))).toEqual({
      ok: true,
      review: { ...envelope, request: { uid: 'u', operation: 'DELETE' } },
    });
  });
});

describe('admissionAnswer', () => {
  it('admits with the request uid, or refuses with a Status and warnings', () => {
    expect(admissionAnswer('u')).toEqual({ ...envelope, response: { uid: 'u', allowed: true } });
    expect(admissionAnswer('u', { code: 409, reason: 'Conflict', message: 'm' }, ['w'])).toEqual({
      ...envelope,
      response: {
        uid: 'u',
        allowed: false,
        status: { code: 409, reason: 'Conflict', message: 'm' },
        warnings: ['w'],
      },
    });
  });
});
