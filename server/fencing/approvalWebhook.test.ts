import { describe, expect, it } from 'vitest';
import { type FenceAccess, handleFenceReview } from './approvalWebhook.js';

const review = (username: string) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      operation: 'UPDATE',
      name: 'n1',
      userInfo: { username },
      oldObject: { metadata: { name: 'n1' }, spec: { nodeName: 'n1', policy: 'p' } },
      object: { metadata: { name: 'n1' }, spec: { nodeName: 'n1', policy: 'p', approvedBy: username } },
    },
  });

describe('handleFenceReview', () => {
  it('a question the cluster will not answer is a refusal with the request uid, not an HTTP error', async () => {
    // found by server/protection/test/fuzzWebhooks.int.test.ts: a review with no user made the
    // SubjectAccessReview invalid (422) and the webhook answered HTTP 500
    const refused: FenceAccess = async () => {
      throw Object.assign(new Error('HTTP 422: at least one of user or group must be specified'), {
        code: 422,
      });
    };
    const [status, body] = await handleFenceReview(review(''), refused);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      response: { uid: 'u-1', allowed: false, status: { code: 500, reason: 'InternalError' } },
    });
    expect((body as any).response.status.message).toContain('cannot ask the cluster whether "" may approve');
  });

  it('asks for the verb and admits what the cluster allows', async () => {
    const asked: string[] = [];
    const access: FenceAccess = async (user, verb, name) => {
      asked.push(`${user.username} ${verb} ${name}`);
      return { allowed: true };
    };
    const [status, body] = await handleFenceReview(review('admin'), access);
    expect([status, (body as any).response]).toEqual([200, { uid: 'u-1', allowed: true }]);
    expect(asked).toEqual(['admin approve n1']);
  });
});
