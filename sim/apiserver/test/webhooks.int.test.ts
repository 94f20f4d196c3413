import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, eventually, failure, podSpec, raw, startCluster } from './harness.js';
import { type TestWebhook, startWebhook } from './webhookServer.js';

let c: Cluster;
let hook: TestWebhook;
let svcHook: TestWebhook;
const admission = () => c.kc.makeApiClient(k8s.AdmissionregistrationV1Api);

beforeAll(async () => {
  hook = await startWebhook();
  svcHook = await startWebhook(['guard.palisade-system.svc']);
  c = await startCluster({ serviceHosts: { 'guard.palisade-system.svc': `127.0.0.1:${svcHook.port}` } });
  for (const name of ['wh', 'plain'])
    await c.core.createNamespace({
      body: { metadata: { name, labels: { guarded: name === 'wh' ? 'yes' : 'no' } } },
    });
});
afterAll(async () => {
  await c.stop();
  await hook.stop();
  await svcHook.stop();
});
afterEach(async () => {
  const list = await admission().listValidatingWebhookConfiguration();
  for (const w of list.items)
    await admission().deleteValidatingWebhookConfiguration({ name: w.metadata!.name! });
  hook.reviews.length = 0;
  svcHook.reviews.length = 0;
  hook.decide = () => ({ allowed: true });
  svcHook.decide = () => ({ allowed: true });
});

function register(
  name: string,
  over: Partial<k8s.V1ValidatingWebhook> = {},
  resources = ['pods', 'pods/eviction'],
) {
  return admission().createValidatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          name: `${name}.palisade.test`,
          clientConfig: { url: `${hook.url}/validate/cell-a`, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources }],
          namespaceSelector: { matchLabels: { guarded: 'yes' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 2,
          ...over,
        },
      ],
    },
  });
}

describe('validating admission webhooks', () => {
  it('sends an AdmissionReview v1 over verified TLS and admits', async () => {
    await register('allow');
    await c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('admitted') });
    expect(hook.reviews).toHaveLength(1);
    const { path, request } = hook.reviews[0];
    expect(path).toBe('/validate/cell-a?timeout=2s');
    expect(request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: 'admitted',
      namespace: 'wh',
      operation: 'CREATE',
      userInfo: { username: 'palisade-admin' },
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(request.object.metadata.name).toBe('admitted');
    expect(request.oldObject).toBeNull();
  });

  it('a denial returns the real error with the webhook code and stores nothing', async () => {
    await register('deny');
    hook.decide = (_p, req) =>
      req.operation === 'CREATE'
        ? { allowed: false, status: { code: 429, reason: 'TooManyRequests', message: 'nope, not now' } }
        : { allowed: true };
    const err = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('denied') }));
    expect(err.code).toBe(429);
    expect(err.status.message).toBe(
      'admission webhook "deny.palisade.test" denied the request: nope, not now',
    );
    expect(
      (await c.core.listNamespacedPod({ namespace: 'wh', fieldSelector: 'metadata.name=denied' })).items,
    ).toHaveLength(0);
    hook.decide = () => ({ allowed: false });
    const bare = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('denied2') }));
    expect(bare.code).toBe(400);
    expect(bare.status.message).toBe(
      'admission webhook "deny.palisade.test" denied the request without explanation',
    );
  });

  it('sees DELETE with oldObject and options, and evictions as CREATE pods/eviction', async () => {
    await c.core.createNamespacedPod({
      namespace: 'wh',
      body: { ...podSpec('victim'), spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] } },
    });
    await c.core.createNamespacedPod({
      namespace: 'wh',
      body: { ...podSpec('evictee'), spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] } },
    });
    await register('watch-deletes');
    await c.core.deleteNamespacedPod({ name: 'victim', namespace: 'wh', gracePeriodSeconds: 5 });
    const del = hook.reviews.find((r) => r.request.operation === 'DELETE')!.request;
    expect(del.object).toBeNull();
    expect(del.oldObject.metadata.name).toBe('victim');
    expect(del.options).toMatchObject({ kind: 'DeleteOptions', gracePeriodSeconds: 5 });
    hook.reviews.length = 0;
    const ev = await raw(
      c,
      'POST',
      '/api/v1/namespaces/wh/pods/evictee/eviction',
      JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evictee' } }),
    );
    expect(ev.code).toBe(201);
    // one review: the eviction itself; its internal delete is not admitted again
    expect(hook.reviews.map((r) => `${r.request.operation} ${r.request.subResource ?? ''}`)).toEqual([
      'CREATE eviction',
    ]);
    expect(hook.reviews[0].request.kind).toEqual({ group: 'policy', version: 'v1', kind: 'Eviction' });
  });

  it('an eviction dry only in its deleteOptions: review dryRun stays false, the object says dry', async () => {
    await c.core.createNamespacedPod({
      namespace: 'wh',
      body: { ...podSpec('dry-evictee'), spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] } },
    });
    await register('watch-dry-evictions');
    const ev = await raw(
      c,
      'POST',
      '/api/v1/namespaces/wh/pods/dry-evictee/eviction',
      JSON.stringify({
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: 'dry-evictee' },
        deleteOptions: { dryRun: ['All'], gracePeriodSeconds: 0 },
      }),
    );
    expect(ev.code).toBe(201);
    const { request } = hook.reviews[0];
    // as kube-apiserver: the flag comes from the query; the body's dry run shows in object and options
    expect(request.dryRun).toBe(false);
    expect(request.object.deleteOptions).toEqual({ dryRun: ['All'], gracePeriodSeconds: 0 });
    expect(request.options).toMatchObject({ kind: 'CreateOptions', dryRun: ['All'] });
    const pod = await c.core.readNamespacedPod({ name: 'dry-evictee', namespace: 'wh' });
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('namespaceSelector and objectSelector decide which requests are sent', async () => {
    await register('scoped', {
      objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
    });
    await c.core.createNamespacedPod({ namespace: 'plain', body: podSpec('unguarded') });
    await c.core.createNamespacedPod({
      namespace: 'wh',
      body: { ...podSpec('skipped'), metadata: { name: 'skipped', labels: { skip: 'true' } } },
    });
    expect(hook.reviews).toHaveLength(0);
    await c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('seen') });
    expect(hook.reviews).toHaveLength(1);
  });

  it('a timeout follows failurePolicy with the real message', async () => {
    hook.decide = () => new Promise((r) => setTimeout(() => r({ allowed: true }), 2500));
    await register('slow', { timeoutSeconds: 1 });
    const err = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('slowpoke') }));
    expect(err.code).toBe(500);
    expect(err.status.reason).toBe('InternalError');
    expect(err.status.message).toBe(
      `Internal error occurred: failed calling webhook "slow.palisade.test": failed to call webhook: Post "${hook.url}/validate/cell-a?timeout=1s": context deadline exceeded`,
    );
    await admission().deleteValidatingWebhookConfiguration({ name: 'slow' });
    await register('slow-ignore', { timeoutSeconds: 1, failurePolicy: 'Ignore' });
    const p = await c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('slowpoke') });
    expect(p.metadata?.name).toBe('slowpoke');
  });

  it('verifies the webhook certificate against caBundle', async () => {
    await register('wrong-ca', { clientConfig: { url: `${hook.url}/validate`, caBundle: svcHook.caBundle } });
    const err = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('untrusted') }));
    expect(err.code).toBe(500);
    expect(err.status.message).toContain('x509: certificate signed by unknown authority');
    expect(hook.reviews).toHaveLength(0);
  });

  it('a malformed response is a failed call', async () => {
    hook.decide = () => 'garbage';
    await register('garbage');
    const err = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('garbled') }));
    expect(err.code).toBe(500);
    expect(err.status.message).toContain(
      'failed calling webhook "garbage.palisade.test": received invalid webhook response',
    );
  });

  it('reaches a service reference through the host mapping, with the service name on the certificate', async () => {
    await register('svc', {
      clientConfig: {
        service: { namespace: 'palisade-system', name: 'guard', path: '/validate/cell-b', port: 443 },
        caBundle: svcHook.caBundle,
      },
    });
    svcHook.decide = () => ({ allowed: false, status: { code: 403, message: 'service says no' } });
    const err = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('via-svc') }));
    expect(err.status.message).toBe(
      'admission webhook "svc.palisade.test" denied the request: service says no',
    );
    expect(svcHook.reviews[0].path).toBe('/validate/cell-b?timeout=2s');
  });

  it('is called with dryRun=true on dry runs, and nothing is stored', async () => {
    await register('dry');
    await c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('dry-pod'), dryRun: 'All' });
    expect(hook.reviews[0].request.dryRun).toBe(true);
    expect(
      (await c.core.listNamespacedPod({ namespace: 'wh', fieldSelector: 'metadata.name=dry-pod' })).items,
    ).toHaveLength(0);
  });

  it('passes the impersonated user and the webhook warnings', async () => {
    await register('who');
    hook.decide = () => ({ allowed: true, warnings: ['protected by a PodProtector'] });
    // the impersonated user is authorized as themselves: the group sre may create pods here
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/wh';
    await raw(
      c,
      'POST',
      `${rbac}/roles`,
      JSON.stringify({
        metadata: { name: 'pod-creator' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }],
      }),
    );
    await raw(
      c,
      'POST',
      `${rbac}/rolebindings`,
      JSON.stringify({
        metadata: { name: 'sre-creates-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-creator' },
        subjects: [{ kind: 'Group', name: 'sre' }],
      }),
    );
    const res = await eventually(async () => {
      const r = await raw(c, 'POST', '/api/v1/namespaces/wh/pods', JSON.stringify(podSpec('as-alice')), {
        'impersonate-user': 'alice@example.com',
        'impersonate-group': 'sre',
      });
      return r.code === 403 ? undefined : r;
    }, 'the RoleBinding to take effect');
    expect(res.code).toBe(201);
    expect(hook.reviews[0].request.userInfo).toEqual({
      username: 'alice@example.com',
      groups: ['sre', 'system:authenticated'],
    });
    expect(String(res.headers.warning)).toContain('protected by a PodProtector');
  });

  it('a repeated DELETE of a terminating pod skips admission, unless it shortens the grace period', async () => {
    await register('deletes');
    const pod = podSpec('terminating', {
      spec: { nodeName: 'n1', terminationGracePeriodSeconds: 30 } as never,
    });
    await c.core.createNamespacedPod({ namespace: 'wh', body: pod });
    const deletes = () => hook.reviews.filter((r) => r.request.operation === 'DELETE');
    await c.core.deleteNamespacedPod({ namespace: 'wh', name: 'terminating' });
    expect(deletes()).toHaveLength(1);
    // kube-apiserver answers a pending graceful deletion as it stands: no webhook call
    const again = await c.core.deleteNamespacedPod({ namespace: 'wh', name: 'terminating' });
    expect(again.metadata?.deletionGracePeriodSeconds).toBe(30);
    expect(deletes()).toHaveLength(1);
    // a shorter grace period is a new deletion decision, and is admitted as one
    await c.core.deleteNamespacedPod({ namespace: 'wh', name: 'terminating', gracePeriodSeconds: 0 });
    expect(deletes()).toHaveLength(2);
  });
});

describe('matchConditions (CEL) decide whether a webhook is called', () => {
  const NOT_TERMINATING = "request.operation != 'DELETE' || !has(oldObject.metadata.deletionTimestamp)";
  const conditions = (...expressions: string[]) => ({
    matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })),
  });

  it('the kubelet’s final delete of a terminating pod skips the webhook, even one that is down', async () => {
    await register('not-terminating', conditions(NOT_TERMINATING));
    await c.core.createNamespacedPod({
      namespace: 'wh',
      body: podSpec('finishing', { spec: { nodeName: 'n1' } as never }),
    });
    await c.core.deleteNamespacedPod({ namespace: 'wh', name: 'finishing', gracePeriodSeconds: 30 });
    const deletes = () => hook.reviews.filter((r) => r.request.operation === 'DELETE');
    expect(deletes()).toHaveLength(1);
    // Palisade's webhook is gone (an outage): the final delete still goes through
    hook.decide = () => 'garbage';
    await c.core.deleteNamespacedPod({ namespace: 'wh', name: 'finishing', gracePeriodSeconds: 0 });
    expect(deletes()).toHaveLength(1);
    const gone = await failure(c.core.readNamespacedPod({ namespace: 'wh', name: 'finishing' }));
    expect(gone.code).toBe(404);
  });

  it('a condition that cannot be evaluated: Fail refuses with 403, Ignore skips', async () => {
    await register('broken', { ...conditions("object.spec.nope == 'x'") });
    const refused = await failure(c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('cel-a') }));
    expect(refused.code).toBe(403);
    expect(refused.status.message).toBe(
      `pods "cel-a" is forbidden: expression 'object.spec.nope == 'x'' resulted in error: no such key: nope`,
    );
    await admission().deleteValidatingWebhookConfiguration({ name: 'broken' });
    await register('broken-ignored', { ...conditions("object.spec.nope == 'x'"), failurePolicy: 'Ignore' });
    await c.core.createNamespacedPod({ namespace: 'wh', body: podSpec('cel-b') });
    expect(hook.reviews).toHaveLength(0);
  });

  it('refuses a configuration whose condition does not compile to a bool', async () => {
    const err = await failure(register('not-bool', conditions('object.metadata.name')));
    expect(err.code).toBe(422);
    expect(err.status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object.metadata.name": must evaluate to bool but got dyn',
        field: 'webhooks[0].matchConditions[0].expression',
      },
    ]);
  });
});
