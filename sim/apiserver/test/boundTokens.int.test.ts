// Tokens bound to a pod (TokenRequest's boundObjectRef), as the kubelet gets them for the
// projected kube-api-access volume, and the 256 KiB annotation limit: both as kube-apiserver
// v1.34 answers, on the embedded API server and (PALISADE_CLUSTER=real) on the real one.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, createNamespace, eventually, failure, podSpec, startCluster } from './harness.js';

let c: Cluster;
let auth: k8s.AuthenticationV1Api;
const NS = 'bound';

beforeAll(async () => {
  c = await startCluster();
  auth = c.kc.makeApiClient(k8s.AuthenticationV1Api);
  await createNamespace(c, NS);
  await c.core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'robot' } } });
});
afterAll(() => c?.stop());

const review = async (token: string) => (await auth.createTokenReview({ body: { spec: { token } } })).status!;

const boundToken = (pod: string, uid?: string, account = 'default') =>
  c.core.createNamespacedServiceAccountToken({
    name: account,
    namespace: NS,
    body: {
      spec: {
        audiences: [],
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod, ...(uid ? { uid } : {}) },
      },
    },
  });

describe('ServiceAccount tokens bound to a pod', () => {
  it('name the pod in the user extra while it lives, and stop authenticating once it is gone', async () => {
    const pod = await c.core.createNamespacedPod({ namespace: NS, body: podSpec('web-0') });
    const { status } = await boundToken('web-0', pod.metadata!.uid);
    const r = await review(status!.token);
    expect(r.authenticated).toBe(true);
    expect(r.user?.username).toBe(`system:serviceaccount:${NS}:default`);
    expect(r.user?.extra).toEqual({
      'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^JTI=/)],
      'authentication.kubernetes.io/pod-name': ['web-0'],
      'authentication.kubernetes.io/pod-uid': [pod.metadata!.uid],
    });
    // an unscheduled pod goes at once; its token with it (kube-apiserver keeps a successful
    // authentication for 10 s, its TokenSuccessCacheTTL: the embedded server checks every time)
    await c.core.deleteNamespacedPod({ namespace: NS, name: 'web-0' });
    const after = await eventually(
      async () => {
        const a = await review(status!.token);
        return !a.authenticated && a;
      },
      'the token of the deleted pod to be refused',
      30_000,
    );
    expect(after.error).toBe('[invalid bearer token, service account token has been invalidated]');
  });

  it('of a pod on a node name the node too (ServiceAccountTokenPodNodeInfo)', async () => {
    const node = await c.core.createNode({ body: { metadata: { name: 'bound-n1' } } });
    const pod = await c.core.createNamespacedPod({
      namespace: NS,
      body: podSpec('web-2', {
        spec: { nodeName: 'bound-n1', containers: [{ name: 'app', image: 'nginx' }] },
      }),
    });
    const { status } = await boundToken('web-2');
    expect((await review(status!.token)).user?.extra).toEqual({
      'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^JTI=/)],
      'authentication.kubernetes.io/node-name': ['bound-n1'],
      'authentication.kubernetes.io/node-uid': [node.metadata!.uid],
      'authentication.kubernetes.io/pod-name': ['web-2'],
      'authentication.kubernetes.io/pod-uid': [pod.metadata!.uid],
    });
  });

  it('refuse a uid that is not the pod, and a pod of another ServiceAccount', async () => {
    await c.core.createNamespacedPod({ namespace: NS, body: podSpec('web-1') });
    const wrongUid = await failure(boundToken('web-1', '5a1c43cc-0000-4000-8000-000000000000'));
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.status.message).toBe(
      'Operation cannot be fulfilled on Pod "web-1": the UID in the bound object reference (5a1c43cc-0000-4000-8000-000000000000) does not match the UID in record. The object might have been deleted and then recreated',
    );
    const otherAccount = await failure(boundToken('web-1', undefined, 'robot'));
    expect(otherAccount.code).toBe(400);
    expect(otherAccount.status.message).toBe(
      'cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.',
    );
    const missing = await failure(boundToken('nobody'));
    expect(missing.code).toBe(404);
    expect(missing.status.message).toBe('pods "nobody" not found');
  });
});

describe('annotations', () => {
  it('may hold 256 KiB in all, keys included; one byte more is refused with the whole write', async () => {
    const key = 'example.com/blob';
    const fill = (n: number) => ({ [key]: 'x'.repeat(n - key.length) });
    const cm = await c.core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'big', annotations: fill(262_144) } },
    });
    expect(cm.metadata?.annotations?.[key]).toHaveLength(262_144 - key.length);
    const tooBig = await failure(
      c.core.patchNamespacedConfigMap(
        { namespace: NS, name: 'big', body: { metadata: { annotations: { a: 'b' } }, data: { x: 'y' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
    expect(tooBig.code).toBe(422);
    expect(tooBig.status.reason).toBe('Invalid');
    expect(tooBig.status.message).toBe(
      'ConfigMap "big" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes',
    );
    // kube-apiserver lists the cause once per validation pass that sees it (four for a ConfigMap
    // update); the embedded server lists it once
    expect(tooBig.status.details.causes).toContainEqual({
      reason: 'FieldValueTooLong',
      message: 'Too long: may not be more than 262144 bytes',
      field: 'metadata.annotations',
    });
    const now = await c.core.readNamespacedConfigMap({ namespace: NS, name: 'big' });
    expect(now.data).toBeUndefined();
    expect(now.metadata?.annotations?.a).toBeUndefined();
  });
});
