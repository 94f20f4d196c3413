// A person limited to some namespaces gets a working console over those and nothing else: a
// ServiceAccount bound to palisade-viewer in one namespace (its token from a TokenRequest, as
// `kubectl create token` makes one) sees that namespace's pods live, no other's, and is told in
// the cluster's words that it may not list nodes. Also: a client cannot choose whom Palisade
// impersonates, and Palisade cannot impersonate where its own credentials lack the verb.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import type { PodView } from '../../lib/console/protocol.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { EmbeddedCluster } from '../../sim/cluster.js';
import type { Console } from '../console.js';
import { subscribe, trpcClient } from '../test/client.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { kubeConfigWithToken } from './kubeAs.js';
import { whoAmI } from './whoami.js';

const CLUSTER = 'palisade-embedded';
let h: ClusterAndConsole;
let cluster: EmbeddedCluster;
let c: Console;
let core: k8s.CoreV1Api;
let shopToken: string;

const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }] } });

beforeAll(async () => {
  h = await startClusterAndConsole({ name: 'ns-test', rack: 'n1', count: 1 });
  ({ cluster, console: c } = h);
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  for (const ns of ['shop', 'blog']) {
    await createReadyNamespace(core, ns);
    await core.createNamespacedPod({ namespace: ns, body: pod(`${ns}-a`) });
  }
  // a ServiceAccount that may view the shop namespace only
  await core.createNamespacedServiceAccount({
    namespace: 'shop',
    body: { metadata: { name: 'shop-reader' } },
  });
  await cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: 'shop',
    body: {
      metadata: { name: 'shop-reader-views' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'palisade-viewer' },
      subjects: [{ kind: 'ServiceAccount', name: 'shop-reader', namespace: 'shop' }],
    },
  });
  const tr = await core.createNamespacedServiceAccountToken({
    namespace: 'shop',
    name: 'shop-reader',
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [], expirationSeconds: 3600 },
    },
  });
  shopToken = tr.status!.token;
  const cache = c.clusters.get(CLUSTER)!.cache;
  await eventually(
    () => cache.pod('shop', 'shop-a') && cache.pod('blog', 'blog-a'),
    'the console sees both pods',
  );
}, 120_000);

afterAll(() => h?.stop());

describe('a person limited to one namespace', () => {
  it('signs in with a ServiceAccount token and is named as the cluster names it', async () => {
    const list = await trpcClient(c.url, shopToken).clusters.list.query();
    expect(list[0].user?.name).toBe('system:serviceaccount:shop:shop-reader');
  });

  it("sees that namespace's pods live, and no other's", async () => {
    const sub = subscribe<PodView>(c.url, shopToken, CLUSTER, 'pods', (p) => `${p.namespace}/${p.name}`);
    try {
      await eventually(() => sub.snapshots.length === 1, 'a snapshot');
      expect([...sub.items.keys()]).toEqual(['shop/shop-a']);
      await core.createNamespacedPod({ namespace: 'blog', body: pod('blog-b') });
      await core.createNamespacedPod({ namespace: 'shop', body: pod('shop-b') });
      await eventually(() => sub.items.has('shop/shop-b'), 'the new shop pod, live');
      expect([...sub.items.keys()].filter((k) => !k.startsWith('shop/'))).toEqual([]);
      expect(sub.gaps).toBe(0);
    } finally {
      sub.close();
    }
  });

  it('is told in the cluster’s words that it may not list nodes, and gets none', async () => {
    const sub = subscribe(c.url, shopToken, CLUSTER, 'nodes', (n: { name: string }) => n.name);
    const errors: string[] = [];
    sub.socket.on('subscribe-error', (e: string) => errors.push(e));
    try {
      await eventually(() => errors.length > 0, 'a refusal');
      expect(errors[0]).toBe(
        'nodes is forbidden: User "system:serviceaccount:shop:shop-reader" cannot list resource "nodes" in API group "" at the cluster scope',
      );
      expect(sub.snapshots).toEqual([]);
    } finally {
      sub.close();
    }
    await expect(
      trpcClient(c.url, shopToken).nodes.get.query({ cluster: CLUSTER, name: 'n1-1' }),
    ).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
  });

  it('reads a pod in its namespace, not one elsewhere', async () => {
    const t = trpcClient(c.url, shopToken);
    await expect(
      t.pods.get.query({ cluster: CLUSTER, namespace: 'shop', name: 'shop-a' }),
    ).resolves.toBeTruthy();
    await expect(t.pods.get.query({ cluster: CLUSTER, namespace: 'blog', name: 'blog-a' })).rejects.toThrow(
      /pods "blog-a" is forbidden: User "system:serviceaccount:shop:shop-reader" cannot get resource "pods" in API group "" in the namespace "blog"/,
    );
  });
});

describe('impersonation', () => {
  it('a client cannot choose whom Palisade impersonates: Impersonate-* headers are dropped', async () => {
    const r = await fetch(`${c.url}/api/trpc/clusters.list`, {
      headers: {
        authorization: `Bearer ${cluster.users.viewer.token}`,
        'impersonate-user': 'admin',
        'impersonate-group': 'system:masters',
      },
    });
    const body = (await r.json()) as { result: { data: { user: { name: string } }[] } };
    expect(body.result.data[0].user.name).toBe('viewer');
  });

  it('Palisade cannot impersonate where its own credentials lack the impersonate verb', async () => {
    // a console whose kubeconfig user is the viewer
    const spec = {
      ...c.clusters.get(CLUSTER)!.spec,
      kc: kubeConfigWithToken(cluster.kc, cluster.users.viewer.token),
    };
    const who = await whoAmI({ id: CLUSTER, spec } as never, {
      kind: 'impersonate',
      as: { username: 'oidc:alice', groups: ['oidc:shop-admins'] },
    });
    expect(who).toMatchObject({ ok: false });
    expect((who as { message: string }).message).toMatch(
      /users "oidc:alice" is forbidden: User "viewer" cannot impersonate resource "users" in API group "" at the cluster scope/,
    );
  });
});
