import { describe, expect, it } from 'vitest';
import { handleEpochReview, type StaleWrite } from './epochWebhook.js';

const lease = { namespace: 'kube-system', name: 'palisade-controller', transitions: 5, holder: 'b' };

function review(fieldManager?: string, resource = 'nodefences', name = 'a1-1') {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      operation: 'UPDATE',
      resource: { group: 'palisade.dev', version: 'v1alpha1', resource },
      subResource: 'status',
      name,
      options: {
        kind: 'UpdateOptions',
        apiVersion: 'meta.k8s.io/v1',
        ...(fieldManager ? { fieldManager } : {}),
      },
      userInfo: { username: 'palisade' },
    },
  });
}

describe('handleEpochReview', () => {
  const refused: StaleWrite[] = [];
  const deps = { readLease: async () => lease, refused: (w: StaleWrite) => refused.push(w) };

  it('lets writes without an epoch through, without reading the Lease', async () => {
    const [code, body] = await handleEpochReview(review(), {
      readLease: () => Promise.reject(new Error('no')),
    });
    expect(code).toBe(200);
    expect(body).toMatchObject({ response: { uid: 'u1', allowed: true } });
  });

  it('admits the current epoch', async () =>
    expect((await handleEpochReview(review('palisade-leader-e5'), deps))[1]).toMatchObject({
      response: { allowed: true },
    }));

  it('refuses a stale epoch, naming both, and tells who is listening', async () => {
    const [, body] = await handleEpochReview(review('palisade-leader-e4'), deps);
    expect(body).toMatchObject({
      response: {
        allowed: false,
        status: {
          code: 409,
          message: expect.stringMatching(
            /carries epoch 4, but the Lease kube-system\/palisade-controller is at epoch 5/,
          ),
          details: { causes: [{ reason: 'PalisadeStaleLeaderEpoch', field: 'options.fieldManager' }] },
        },
      },
    });
    expect(refused.at(-1)).toMatchObject({
      what: 'UPDATE nodefences/status.palisade.dev a1-1',
      user: 'palisade',
    });
  });

  it("refuses a deposed leader's incident tracker, counted under incidents/status", async () => {
    const seen: string[] = [];
    const [, body] = await handleEpochReview(
      review('palisade-leader-e4', 'incidents', 'inc-20261130-045408'),
      {
        ...deps,
        reviewed: (r) => seen.push(r.resource),
      },
    );
    expect(body).toMatchObject({ response: { allowed: false, status: { code: 409 } } });
    expect(seen).toEqual(['incidents/status']);
    expect(refused.at(-1)?.what).toBe('UPDATE incidents/status.palisade.dev inc-20261130-045408');
  });

  it('refuses a leader write when the Lease cannot be read', async () => {
    const [, body] = await handleEpochReview(review('palisade-leader-e5'), {
      readLease: () => Promise.reject(new Error('connection refused')),
    });
    expect(body).toMatchObject({
      response: {
        allowed: false,
        status: { message: expect.stringMatching(/cannot read the controller Lease/) },
      },
    });
  });

  it('answers 400 to what is not an AdmissionReview', async () => {
    expect((await handleEpochReview('{', deps))[0]).toBe(400);
    expect((await handleEpochReview('{"kind":"x"}', deps))[0]).toBe(400);
  });
});
