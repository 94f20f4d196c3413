// The clients that act as a person send exactly the headers the cluster needs: the person's
// token in place of the console's, or the console's token plus one Impersonate-Group line per
// group (never a comma-joined one, never a system: group).
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { impersonationHeaders, ImpersonationRefused } from '../../lib/auth/impersonation.js';
import { startRecordingApi, type RecordingApi } from '../test/recordingApi.js';
import { credentialKey, makeClientAs } from './kubeAs.js';

let api: RecordingApi;
let kc: k8s.KubeConfig;

beforeAll(async () => {
  api = await startRecordingApi(() => ({ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] }), {
    name: 'console',
    token: 'console-token',
  });
  kc = api.kc;
});
afterAll(() => api.close());

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}

async function headersSent(credential: Parameters<typeof makeClientAs>[1]) {
  api.seen.length = 0;
  await makeClientAs(kc, credential, k8s.CoreV1Api).listNode();
  return pairs(api.seen[0].rawHeaders);
}

describe('clients acting as a person', () => {
  it('use the console credentials as they are', async () => {
    const h = await headersSent({ kind: 'console' });
    expect(h).toContainEqual(['authorization', 'Bearer console-token']);
    expect(h.some(([k]) => k.startsWith('impersonate-'))).toBe(false);
  });

  it("send the person's token instead of the console's", async () => {
    const h = await headersSent({ kind: 'token', token: 'alice-token' });
    expect(h.filter(([k]) => k === 'authorization')).toEqual([['authorization', 'Bearer alice-token']]);
  });

  it('impersonate with one Impersonate-Group line per group, system: groups dropped', async () => {
    const h = await headersSent({
      kind: 'impersonate',
      as: {
        username: 'oidc:alice',
        uid: 'u1',
        groups: ['oidc:a', 'oidc:b,c', 'system:masters'],
        extra: { scopes: ['x', 'y'] },
      },
    });
    expect(h).toContainEqual(['authorization', 'Bearer console-token']);
    expect(h.filter(([k]) => k === 'impersonate-user')).toEqual([['impersonate-user', 'oidc:alice']]);
    expect(h.filter(([k]) => k === 'impersonate-uid')).toEqual([['impersonate-uid', 'u1']]);
    expect(h.filter(([k]) => k === 'impersonate-group').map(([, v]) => v)).toEqual(['oidc:a', 'oidc:b,c']);
    expect(h.filter(([k]) => k === 'impersonate-extra-scopes').map(([, v]) => v)).toEqual(['x', 'y']);
  });
});

describe('impersonationHeaders', () => {
  it('refuses to impersonate a system: user', () =>
    expect(() => impersonationHeaders({ username: 'system:admin', groups: [] })).toThrow(
      ImpersonationRefused,
    ));
  it('refuses an empty user name', () =>
    expect(() => impersonationHeaders({ username: '', groups: [] })).toThrow(ImpersonationRefused));
});

describe('credentialKey', () => {
  it('never contains the token', () => {
    const k = credentialKey({ kind: 'token', token: 'very-secret' });
    expect(k).not.toContain('very-secret');
    expect(k).toBe(credentialKey({ kind: 'token', token: 'very-secret' }));
    expect(k).not.toBe(credentialKey({ kind: 'token', token: 'other' }));
  });
});
