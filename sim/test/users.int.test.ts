// The embedded cluster's demo users on either back end (PALISADE_CLUSTER=real for the real
// one): tokens.csv beside the kubeconfig with viewer, operator and admin, each bound to its
// Palisade role from deploy/rbac/; what each may do; and the webhook client certificate the
// cluster's CA signed.
import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenFile } from '../apiserver/auth/tokenFile.js';
import { eventually, podSpec } from '../apiserver/test/harness.js';
import type { DemoRole } from '../cluster.js';
import { type Backend, backend, call } from '../diff/backends.js';
import { rwoDatabaseScenario, startScenario } from './clusterHarness.js';

let c: Awaited<ReturnType<typeof startScenario>>;
const as: Partial<Record<DemoRole, Backend>> = {};

beforeAll(async () => {
  c = await startScenario(rwoDatabaseScenario({ name: 'demo-users', nodes: 1 }));
  for (const role of ['viewer', 'operator', 'admin'] as const)
    as[role] = backend(c.backend, {
      url: c.apiserver.url,
      caPem: c.apiserver.caPem,
      token: c.users[role].token,
    });
}, 120_000);
afterAll(async () => {
  for (const b of Object.values(as)) b?.agent.destroy();
  await c?.stop();
});

const ssar = (b: Backend, resourceAttributes: Record<string, string>) =>
  call(b, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes },
  }).then((r) => r.body?.status);

describe('demo users', () => {
  it('tokens.csv holds viewer, operator and admin (mode 0600), as the API server reads it', async () => {
    const text = await readFile(c.tokensFile, 'utf8');
    expect(parseTokenFile(text).map((e) => e.username)).toEqual(['viewer', 'operator', 'admin']);
    expect(parseTokenFile(text).map((e) => e.token)).toEqual([
      c.users.viewer.token,
      c.users.operator.token,
      c.users.admin.token,
    ]);
    expect((await stat(c.tokensFile)).mode & 0o777).toBe(0o600);
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const who = await call(as[role]!, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
      expect(who.body.status.userInfo).toEqual({
        username: role,
        uid: role,
        groups: ['system:authenticated'],
      });
    }
  });

  it('the viewer lists pods but may not delete one; the operator may', async () => {
    await c.core.createNamespacedPod({ namespace: 'default', body: podSpec('victim') });
    const list = await eventually(async () => {
      const r = await call(as.viewer!, 'GET', '/api/v1/namespaces/default/pods');
      return r.code === 200 ? r : undefined;
    }, 'viewer lists pods (the aggregated role filled)');
    expect(list.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toContain('victim');
    const refused = await call(as.viewer!, 'DELETE', '/api/v1/namespaces/default/pods/victim');
    expect(refused.code).toBe(403);
    expect(refused.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'pods "victim" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { name: 'victim', kind: 'pods' },
      code: 403,
    });
    expect((await call(as.viewer!, 'GET', '/api/v1/namespaces/default/secrets')).code).toBe(403);
    const deleted = await eventually(async () => {
      const r = await call(as.operator!, 'DELETE', '/api/v1/namespaces/default/pods/victim');
      return r.code === 200 ? r : undefined;
    }, 'operator deletes the pod');
    expect(deleted.body.metadata.name).toBe('victim');
  });

  it('SelfSubjectAccessReviews: only the admin approves fences; guards by name for the operator', async () => {
    const approve = { verb: 'approve', group: 'palisade.dev', resource: 'nodefences', name: 'fence-1' };
    const admin = await eventually(async () => {
      const s = await ssar(as.admin!, approve);
      return s?.allowed ? s : undefined;
    }, 'admin approves (palisade-admin aggregated)');
    expect(admin).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "palisade-demo-admin" of ClusterRole "palisade-admin" to User "admin"',
    });
    expect(await ssar(as.operator!, approve)).toEqual({ allowed: false });
    expect(await ssar(as.viewer!, approve)).toEqual({ allowed: false });
    const guard = (name: string) => ({ verb: 'override', group: 'palisade.dev', resource: 'guards', name });
    expect((await ssar(as.operator!, guard('forceDeletePod'))).allowed).toBe(true);
    expect((await ssar(as.operator!, guard('somethingElse'))).allowed).toBe(false);
    expect((await ssar(as.admin!, guard('somethingElse'))).allowed).toBe(true);
    const fault = { verb: 'create', group: 'palisade.dev', resource: 'simulatedfaults' };
    expect((await ssar(as.operator!, fault)).allowed).toBe(true);
    expect((await ssar(as.viewer!, fault)).allowed).toBe(false);
  });

  it('SelfSubjectAccessReviews: every role reads Incidents; the operator and admin declare and run one', async () => {
    const incidents = (verb: string) => ({ verb, group: 'palisade.dev', resource: 'incidents' });
    await eventually(
      async () => (await ssar(as.operator!, incidents('create')))?.allowed,
      'operator declares an incident (palisade-operator aggregated)',
    );
    const allowed = async (role: DemoRole, verb: string) => (await ssar(as[role]!, incidents(verb))).allowed;
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      for (const verb of ['get', 'list', 'watch'])
        expect(await allowed(role, verb), `${role} ${verb}`).toBe(true);
      // declare, take command, set the severity, post an update, resolve: create and merge patches
      for (const verb of ['create', 'patch'])
        expect(await allowed(role, verb), `${role} ${verb}`).toBe(role !== 'viewer');
      // no one deletes or replaces an incident, nor writes its status: the tracker's alone
      for (const verb of ['update', 'delete'])
        expect(await allowed(role, verb), `${role} ${verb}`).toBe(false);
      expect(
        (await ssar(as[role]!, { ...incidents('update'), subresource: 'status' })).allowed,
        `${role} update status`,
      ).toBe(false);
    }
  });

  it('SelfSubjectAccessReviews: the operator and admin cordon and drain a node; the viewer may not', async () => {
    const cordon = { verb: 'patch', resource: 'nodes', name: 'a1-1' };
    const evict = { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'shop' };
    await eventually(
      async () => (await ssar(as.operator!, evict))?.allowed,
      'operator evicts (palisade-operator aggregated)',
    );
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      expect((await ssar(as[role]!, cordon)).allowed, `${role} cordon`).toBe(role !== 'viewer');
      expect((await ssar(as[role]!, evict)).allowed, `${role} evict`).toBe(role !== 'viewer');
    }
  });

  it("the webhook client certificate is CN=kube-apiserver-webhook-client, signed by the kubeconfig's CA", async () => {
    const cert = new X509Certificate(c.webhookClient.certPem);
    expect(cert.subject).toBe('CN=kube-apiserver-webhook-client');
    expect(cert.verify(new X509Certificate(c.apiserver.caPem).publicKey)).toBe(true);
    expect(await readFile(c.webhookClient.admissionConfigFile, 'utf8')).toContain(
      'WebhookAdmissionConfiguration',
    );
  });
});
