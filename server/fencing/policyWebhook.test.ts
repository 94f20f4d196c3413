import { describe, expect, it } from 'vitest';
import { handlePolicyReview, type PolicyReviewContext } from './policyWebhook.js';

const review = (username: string) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      operation: 'CREATE',
      userInfo: { username },
      object: { metadata: { name: 'p1' }, spec: { agent: { type: 'power' } } },
    },
  });

const context = (access: PolicyReviewContext['access']): PolicyReviewContext => ({
  access,
  isSelf: async () => false,
  credentialsNamespaces: ['palisade-system'],
});

describe('handlePolicyReview', () => {
  it('a question the cluster will not answer is a refusal with the request uid, not an HTTP 500', async () => {
    // found by server/protection/test/fuzzWebhooks.int.test.ts: a review with no user made the
    // SubjectAccessReview invalid (422) and the webhook answered HTTP 500
    const [status, body] = await handlePolicyReview(
      review(''),
      context(async () => {
        throw Object.assign(new Error('HTTP 422: at least one of user or group must be specified'), {
          code: 422,
        });
      }),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({
      response: { uid: 'u-1', allowed: false, status: { code: 500, reason: 'InternalError' } },
    });
    expect((body as any).response.status.message).toContain('cannot judge the FencePolicy write of ""');
  });

  it('asks for configure on a create and admits what the cluster allows', async () => {
    const asked: string[] = [];
    const [status, body] = await handlePolicyReview(
      review('admin'),
      context(async (user, verb, name) => {
        asked.push(`${user.username} ${verb} ${name}`);
        return { allowed: true };
      }),
    );
    expect([status, (body as any).response]).toEqual([200, { uid: 'u-1', allowed: true }]);
    expect(asked).toEqual(['admin configure p1']);
  });
});
