// Differential: authentication, impersonation, RBAC and the review resources on the embedded
// API server and on kube-apiserver v1.34.10 (--authorization-mode=Node,RBAC, the same token
// file): every 403 text and details, kube-apiserver's plain-text 500 for groups without a
// user, repeated and comma-bearing Impersonate-Group headers, RoleBindings to ClusterRoles,
// missing roles, aggregation, validation, and what each review answers.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backend, type Backends, type Reply, call, onBoth, startBackends } from './backends.js';
import { normalise } from './normalise.js';
import { namespace } from './scenario.js';

let bs: Backends;
let dir: string;
const NS = 'diff-auth';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AUTHZ = '/apis/authorization.k8s.io/v1';
const AUTHN = '/apis/authentication.k8s.io/v1';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-diff-auth-'));
  const tokenAuthFile = join(dir, 'tokens.csv');
  await writeFile(
    tokenAuthFile,
    'alice-token,alice,alice-uid\nbob-token,bob,bob-uid,"dev,ops"\nimp-token,imp,imp-uid\ncarol-token,carol,carol-uid\ndave-token,dave,dave-uid\n',
  );
  bs = await startBackends({ tokenAuthFile });
  await onBoth(bs, (b) => namespace(b, NS));
}, 120_000);
afterAll(async () => {
  await bs?.stop();
  await rm(dir, { recursive: true, force: true });
});

const as = (b: Backend, token: string): Backend => ({ ...b, token });

/** what a client sees of a reply: code, body (or text), and the content type */
const seen = (r: Reply) => ({
  code: r.code,
  body: r.body ?? r.text,
  contentType: r.headers['content-type'],
});

/**
 * A known difference: kube-apiserver visits ClusterRoleBindings in its informer cache's
 * (random) order, so a rules review lists their rules in any order; the embedded server lists
 * them in binding name order. Rules reviews are compared as sets.
 */
function sortedRules(r: { body: any }) {
  const s = r.body?.status;
  if (!s?.resourceRules) return r;
  const sort = (l: unknown[]) => [...l].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return {
    ...r,
    body: {
      ...r.body,
      status: { ...s, resourceRules: sort(s.resourceRules), nonResourceRules: sort(s.nonResourceRules) },
    },
  };
}

async function same(scenario: (b: Backend) => Promise<unknown>) {
  const r = await onBoth(bs, scenario);
  expect(normalise(r.embedded)).toEqual(normalise(r.real));
  return r.embedded;
}

const post = (b: Backend, path: string, body: unknown, headers: Record<string, string | string[]> = {}) =>
  call(b, 'POST', path, body, headers as Record<string, string>).then(seen);

describe('403 texts of RBAC denials', () => {
  const requests: [string, string, unknown?][] = [
    ['GET', `/api/v1/namespaces/${NS}/pods`],
    ['GET', '/api/v1/pods'],
    ['GET', `/api/v1/namespaces/${NS}/pods/x`],
    ['DELETE', `/api/v1/namespaces/${NS}/pods/x`],
    ['DELETE', `/api/v1/namespaces/${NS}/pods`],
    ['GET', `/api/v1/namespaces/${NS}/pods?watch=true`],
    ['GET', `/api/v1/watch/namespaces/${NS}/pods`],
    ['GET', `/api/v1/namespaces/${NS}/pods?fieldSelector=metadata.name%3Dfoo`],
    ['POST', `/api/v1/namespaces/${NS}/pods/x/eviction`, {}],
    ['PATCH', `/api/v1/namespaces/${NS}/pods/x/status`, {}],
    ['GET', `/api/v1/namespaces/${NS}`],
    ['GET', `/api/v1/namespaces/${NS}/status`],
    ['POST', '/api/v1/namespaces', { metadata: { name: 'zz' } }],
    ['GET', '/api/v1/nodes/n1'],
    ['GET', `/apis/apps/v1/namespaces/${NS}/deployments/d/scale`],
    ['GET', '/apis/palisade.dev/v1alpha1/nodefences'],
    ['GET', `/apis/palisade.dev/v1alpha1/namespaces/${NS}/nodefences/f`],
    ['GET', `${RBAC}/clusterroles`],
    ['POST', `/api/v1/namespaces/${NS}/serviceaccounts/default/token`, {}],
    ['GET', '/metrics'],
    ['GET', '/foo/bar'],
    [
      'POST',
      `${AUTHZ}/subjectaccessreviews`,
      { spec: { user: 'alice', resourceAttributes: { verb: 'get' } } },
    ],
    ['POST', `${AUTHN}/tokenreviews`, { spec: { token: 'alice-token' } }],
  ];
  it.each(requests)('%s %s', async (method, path, body) => {
    const r = (await same(async (b) => seen(await call(as(b, 'alice-token'), method, path, body)))) as {
      code: number;
    };
    expect(r.code).toBe(403);
  });

  it('a token nobody holds is 401, on health paths too; no token may read /healthz', async () => {
    await same(async (b) => [
      seen(await call(as(b, 'nope'), 'GET', '/api/v1/pods')),
      seen(await call(as(b, 'nope'), 'GET', '/healthz')),
      (await call(b, 'GET', '/healthz', undefined, { authorization: '' })).code,
      (await call(b, 'GET', '/version', undefined, { authorization: '' })).code,
    ]);
  });
});

const ssr = (b: Backend, headers: Record<string, string | string[]> = {}) =>
  post(
    b,
    `${AUTHN}/selfsubjectreviews`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    headers,
  );

describe('impersonation', () => {
  it('refused without the impersonate verb, per kind of thing', async () => {
    await same(async (b) => {
      const alice = as(b, 'alice-token');
      return [
        await ssr(alice, { 'impersonate-user': 'bob' }),
        await ssr(alice, { 'impersonate-user': 'system:serviceaccount:ns1:sa1' }),
      ];
    });
  });

  it('groups, extras or a uid without a user: plain-text 500', async () => {
    await same(async (b) => [
      await ssr(b, { 'impersonate-group': 'g' }),
      await ssr(b, { 'impersonate-uid': 'u' }),
      await ssr(as(b, 'alice-token'), { 'impersonate-group': 'g' }),
    ]);
  });

  it('two Impersonate-Group headers are two groups; a comma inside one header is part of one group', async () => {
    const r = (await same(async (b) => [
      await ssr(b, { 'impersonate-user': 'carol', 'impersonate-group': ['g1', 'g2'] }),
      await ssr(b, { 'impersonate-user': 'carol', 'impersonate-group': 'a,b' }),
      await ssr(b, { 'impersonate-user': 'carol', 'impersonate-group': ['a,b', 'c'] }),
    ])) as { body: any }[];
    expect(r[0].body.status.userInfo.groups).toEqual(['g1', 'g2', 'system:authenticated']);
    expect(r[1].body.status.userInfo.groups).toEqual(['a,b', 'system:authenticated']);
  });

  it('service accounts, anonymous, extras and uid as the admin', async () => {
    await same(async (b) => [
      await ssr(b, { 'impersonate-user': 'system:serviceaccount:ns1:sa1' }),
      await ssr(b, { 'impersonate-user': 'system:serviceaccount:ns1:sa1', 'impersonate-group': 'g' }),
      await ssr(b, { 'impersonate-user': 'system:anonymous' }),
      await ssr(b, {
        'impersonate-user': 'x',
        'impersonate-extra-Scopes': ['a', 'b'],
        'impersonate-extra-foo%2fbar': 'c',
        'impersonate-uid': 'U1',
      }),
      await ssr(b, { 'impersonate-user': 'x', 'impersonate-group': 'system:unauthenticated' }),
    ]);
  });

  it('allowed users only: each other kind is refused with its own resource', async () => {
    await onBoth(bs, async (b) => {
      await call(b, 'POST', `${RBAC}/clusterroles`, {
        metadata: { name: 'imp-users' },
        rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }],
      });
      await call(b, 'POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'imp-users' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'imp-users' },
        subjects: [{ kind: 'User', name: 'imp' }],
      });
      await eventually(async () => (await ssr(as(b, 'imp-token'), { 'impersonate-user': 'x' })).code === 201);
    });
    await same(async (b) => {
      const imp = as(b, 'imp-token');
      return [
        await ssr(imp, { 'impersonate-user': 'x' }),
        await ssr(imp, { 'impersonate-user': 'x', 'impersonate-group': 'g1' }),
        await ssr(imp, { 'impersonate-user': 'system:serviceaccount:ns1:sa1' }),
        await ssr(imp, { 'impersonate-user': 'x', 'impersonate-extra-scopes': 'v' }),
        await ssr(imp, { 'impersonate-user': 'x', 'impersonate-uid': 'u1' }),
        // the impersonated user is then authorized as themselves
        seen(await call(imp, 'GET', '/api/v1/pods', undefined, { 'impersonate-user': 'x' })),
      ];
    });
  });
});

const ssar = (b: Backend, spec: unknown) =>
  post(b, `${AUTHZ}/selfsubjectaccessreviews`, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec,
  });
const ssrr = (b: Backend, spec: unknown) =>
  post(b, `${AUTHZ}/selfsubjectrulesreviews`, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    spec,
  }).then(sortedRules);

describe('reviews', () => {
  it('SelfSubjectReview of token-file users and the admin', async () => {
    await same(async (b) => [await ssr(as(b, 'alice-token')), await ssr(as(b, 'bob-token')), await ssr(b)]);
  });

  it('SelfSubjectAccessReview', async () => {
    await same(async (b) => {
      const alice = as(b, 'alice-token');
      return [
        await ssar(alice, { resourceAttributes: { verb: 'list', resource: 'pods', namespace: NS } }),
        await ssar(alice, { nonResourceAttributes: { verb: 'get', path: '/api' } }),
        await ssar(alice, {
          resourceAttributes: {
            verb: 'create',
            group: 'authorization.k8s.io',
            resource: 'selfsubjectaccessreviews',
          },
        }),
        await ssar(b, { resourceAttributes: { verb: 'list', resource: 'pods', namespace: NS } }),
        await ssar(alice, {}),
      ];
    });
  });

  it('SelfSubjectRulesReview', async () => {
    await same(async (b) => [
      await ssrr(as(b, 'alice-token'), { namespace: NS }),
      await ssrr(b, { namespace: NS }),
      await ssrr(as(b, 'alice-token'), {}),
    ]);
  });

  it('SubjectAccessReview and LocalSubjectAccessReview', async () => {
    await same(async (b) => [
      await post(b, `${AUTHZ}/subjectaccessreviews`, {
        spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } },
      }),
      await post(b, `${AUTHZ}/subjectaccessreviews`, {
        spec: {
          user: 'x',
          groups: ['system:masters'],
          resourceAttributes: { verb: 'get', resource: 'pods' },
        },
      }),
      await post(b, `${AUTHZ}/subjectaccessreviews`, {
        // (a path one binding grants: with two, the real one names either)
        spec: {
          user: 'x',
          groups: ['system:authenticated'],
          nonResourceAttributes: { verb: 'get', path: '/api' },
        },
      }),
      await post(b, `${AUTHZ}/subjectaccessreviews`, {
        spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
      }),
      await post(b, `${AUTHZ}/namespaces/${NS}/localsubjectaccessreviews`, {
        spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: NS } },
      }),
      await post(b, `${AUTHZ}/namespaces/${NS}/localsubjectaccessreviews`, {
        spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'other' } },
      }),
    ]);
  });

  it('TokenReview', async () => {
    await same(async (b) => [
      await post(b, `${AUTHN}/tokenreviews`, { spec: { token: 'bob-token' } }),
      await post(b, `${AUTHN}/tokenreviews`, { spec: { token: 'nope' } }),
      await post(b, `${AUTHN}/tokenreviews`, { spec: { token: 'alice-token', audiences: ['foo'] } }),
      await post(b, `${AUTHN}/tokenreviews`, {
        spec: { token: 'alice-token', audiences: ['foo', 'https://kubernetes.default.svc.cluster.local'] },
      }),
      await post(b, `${AUTHN}/tokenreviews`, { spec: {} }),
    ]);
  });
});

/** a token's text differs between the servers (another key, another jti): compare the rest */
const withoutToken = (r: { body: any }) => {
  const body = structuredClone(r.body);
  if (body?.status?.token) body.status.token = '<token>';
  if (body?.spec?.token) body.spec.token = '<token>';
  return { ...r, body };
};

describe('ServiceAccount tokens', () => {
  it('TokenRequest, and what the token authenticates as', async () => {
    await same(async (b) => {
      const sa = `/api/v1/namespaces/${NS}/serviceaccounts`;
      const issued = await post(b, `${sa}/default/token`, { spec: { expirationSeconds: 600 } });
      const token = (issued.body as any).status.token as string;
      const holder = as(b, token);
      return [
        withoutToken(issued),
        await post(b, `${sa}/nope/token`, { spec: {} }),
        await post(b, `${sa}/default/token`, { spec: { expirationSeconds: 60 } }),
        await ssr(holder),
        withoutToken(await post(b, `${AUTHN}/tokenreviews`, { spec: { token } })),
        seen(await call(holder, 'GET', `/api/v1/namespaces/${NS}/pods`)),
        withoutToken(await post(b, `${AUTHN}/tokenreviews`, { spec: { token, audiences: ['foo'] } })),
      ];
    });
  });

  it('a token for another audience: only a review for that audience accepts it', async () => {
    await same(async (b) => {
      const issued = await post(b, `/api/v1/namespaces/${NS}/serviceaccounts/default/token`, {
        spec: { audiences: ['palisade'] },
      });
      const token = (issued.body as any).status.token as string;
      return [
        withoutToken(issued),
        seen(await call(as(b, token), 'GET', '/version')),
        withoutToken(
          await post(b, `${AUTHN}/tokenreviews`, { spec: { token, audiences: ['palisade', 'x'] } }),
        ),
        withoutToken(await post(b, `${AUTHN}/tokenreviews`, { spec: { token } })),
      ];
    });
  });
});

describe('ServiceAccount tokens after their ServiceAccount is gone', () => {
  it('stop authenticating: 401, and a TokenReview that says why', async () => {
    const sa = `/api/v1/namespaces/${NS}/serviceaccounts`;
    const tokens = await onBoth(bs, async (b) => {
      await call(b, 'POST', sa, { metadata: { name: 'short-lived' } });
      const issued = await post(b, `${sa}/short-lived/token`, { spec: {} });
      await call(b, 'DELETE', `${sa}/short-lived`);
      const token = (issued.body as any).status.token as string;
      // the real one's ServiceAccount cache catches up a moment later
      await eventually(
        async () => (await call(as(b, token), 'GET', '/version')).code === 401,
        `${b.name}: 401`,
      );
      return token;
    });
    await same(async (b) => {
      const token = tokens[b.name];
      return [
        seen(await call(as(b, token), 'GET', `/api/v1/namespaces/${NS}/pods`)),
        withoutToken(await post(b, `${AUTHN}/tokenreviews`, { spec: { token } })),
      ];
    });
  });
});

describe('RBAC objects', () => {
  it('RoleBinding to a ClusterRole grants in its namespace only, named in the reason', async () => {
    await onBoth(bs, async (b) => {
      await call(b, 'POST', `${RBAC}/clusterroles`, {
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }],
      });
      await call(b, 'POST', `${RBAC}/namespaces/${NS}/rolebindings`, {
        metadata: { name: 'readers' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' },
        subjects: [
          { kind: 'User', name: 'carol' },
          { kind: 'ServiceAccount', name: 'default' },
        ],
      });
      await eventually(
        async () => (await call(as(b, 'carol-token'), 'GET', `/api/v1/namespaces/${NS}/pods`)).code === 200,
      );
    });
    await same(async (b) => {
      const carol = as(b, 'carol-token');
      return [
        await ssar(carol, { resourceAttributes: { verb: 'list', resource: 'pods', namespace: NS } }),
        await ssar(carol, {
          resourceAttributes: { verb: 'get', resource: 'pods', subresource: 'log', namespace: NS, name: 'p' },
        }),
        await ssar(carol, { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } }),
        await post(b, `${AUTHZ}/subjectaccessreviews`, {
          spec: {
            user: `system:serviceaccount:${NS}:default`,
            resourceAttributes: { verb: 'get', resource: 'pods', namespace: NS },
          },
        }),
        seen(await call(carol, 'GET', '/api/v1/pods')),
        await ssrr(carol, { namespace: NS }),
      ];
    });
  });

  it('a binding to a missing role: the denial and the rules review say so', async () => {
    await onBoth(bs, async (b) => {
      await call(b, 'POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'missing' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nope' },
        subjects: [{ kind: 'User', name: 'alice' }],
      });
      await eventually(async () =>
        (await call(as(b, 'alice-token'), 'GET', '/api/v1/pods')).text.includes('RBAC:'),
      );
    });
    await same(async (b) => {
      const alice = as(b, 'alice-token');
      return [
        seen(await call(alice, 'GET', '/api/v1/pods')),
        await ssar(alice, { resourceAttributes: { verb: 'list', resource: 'pods' } }),
        await ssrr(alice, { namespace: NS }),
      ];
    });
  });

  it('aggregation: matched ClusterRoles in name order, each rule once', async () => {
    const rules = await same(async (b) => {
      const create = (o: unknown) => call(b, 'POST', `${RBAC}/clusterroles`, o).then(seen);
      const out = [
        await create({
          metadata: { name: 'agg' },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'x' } }] },
        }),
        await create({
          metadata: { name: 'part-b', labels: { a: 'x' } },
          rules: [
            { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
            { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
          ],
        }),
        await create({
          metadata: { name: 'part-a', labels: { a: 'x' } },
          rules: [
            { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
            { nonResourceURLs: ['/metrics'], verbs: ['get'] },
          ],
        }),
      ];
      const agg = await eventually(async () => {
        const r = await call(b, 'GET', `${RBAC}/clusterroles/agg`);
        return r.body?.rules?.length === 3 ? r : undefined;
      }, `${b.name}: agg aggregated`);
      return [...out, agg.body.rules];
    });
    expect((rules as unknown[])[3]).toEqual([
      { verbs: ['list'], apiGroups: [''], resources: ['nodes'] },
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
    ]);
  });

  it('validation and defaults', async () => {
    await same(async (b) => [
      await post(b, `${RBAC}/namespaces/${NS}/roles`, {
        metadata: { name: 'bad' },
        rules: [{ resources: ['pods'] }],
      }),
      await post(b, `${RBAC}/namespaces/${NS}/roles`, {
        metadata: { name: 'bad2' },
        rules: [{ nonResourceURLs: ['/x'], verbs: ['get'] }],
      }),
      await post(b, `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'bad' },
        roleRef: { kind: 'Role', name: 'x', apiGroup: 'rbac.authorization.k8s.io' },
        subjects: [{ kind: 'Foo', name: 'x' }],
      }),
      await post(b, `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'sa-no-ns' },
        roleRef: { kind: 'ClusterRole', name: 'x' },
        subjects: [{ kind: 'ServiceAccount', name: 'x' }],
      }),
      await post(b, `${RBAC}/namespaces/${NS}/rolebindings`, {
        metadata: { name: 'defaults' },
        roleRef: { kind: 'Role', name: 'x' },
        subjects: [
          { kind: 'User', name: 'u' },
          { kind: 'Group', name: 'g' },
          { kind: 'ServiceAccount', name: 's' },
        ],
      }),
      await post(b, `${RBAC}/clusterroles`, { metadata: { name: 'system:no-rules' } }),
      seen(
        await call(
          b,
          'PATCH',
          `${RBAC}/namespaces/${NS}/rolebindings/defaults`,
          { roleRef: { name: 'y' } },
          {
            'content-type': 'application/merge-patch+json',
          },
        ),
      ),
    ]);
  });

  it('bootstrap roles and bindings clients rely on', async () => {
    await same(async (b) => {
      const out = [];
      for (const name of [
        'cluster-admin',
        'system:basic-user',
        'system:discovery',
        'system:public-info-viewer',
      ]) {
        out.push((await call(b, 'GET', `${RBAC}/clusterroles/${name}`)).body);
        out.push((await call(b, 'GET', `${RBAC}/clusterrolebindings/${name}`)).body);
      }
      return out;
    });
  });

  it('discovery of the RBAC, authorization and authentication groups', async () => {
    const strip = (r: Reply) => ({
      ...r.body,
      resources: r.body.resources.map(({ storageVersionHash: _h, ...rest }: any) => rest),
    });
    await same(async (b) => [
      strip(await call(b, 'GET', RBAC)),
      strip(await call(b, 'GET', AUTHZ)),
      strip(await call(b, 'GET', AUTHN)),
      (await call(b, 'GET', '/api/v1')).body.resources.find((r: any) => r.name === 'serviceaccounts/token'),
    ]);
  });
});

describe('escalation prevention', () => {
  const role = (name: string, rules: unknown[]) => ({ metadata: { name }, rules });
  const binding = (name: string, kind: string, ref: string) => ({
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: ref },
    subjects: [{ kind: 'User', name: 'someone' }],
  });
  const grant = async (b: Backend, name: string, rules: unknown[]) => {
    await call(b, 'POST', `${RBAC}/clusterroles`, role(name, rules));
    await call(b, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'User', name: 'dave' }],
    });
  };
  const davesCheck = (b: Backend, verb: string, resource: string, name?: string) =>
    eventually(
      async () =>
        (
          await ssar(as(b, 'dave-token'), {
            resourceAttributes: { verb, group: 'rbac.authorization.k8s.io', resource, namespace: NS, name },
          })
        ).body.status.allowed,
      `${b.name}: dave may ${verb} ${resource}`,
    );

  it('roles and bindings grant only what their writer holds, unless escalate or bind allow more', async () => {
    await onBoth(bs, async (b) => {
      await grant(b, 'rbac-writer', [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'],
          verbs: ['create', 'update', 'patch', 'get'],
        },
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      ]);
      await call(b, 'POST', `${RBAC}/clusterroles`, {
        metadata: { name: 'log-reader' },
        rules: [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }],
      });
      await davesCheck(b, 'create', 'roles');
    });
    await same(async (b) => {
      const dave = as(b, 'dave-token');
      const roles = `${RBAC}/namespaces/${NS}/roles`;
      const bindings = `${RBAC}/namespaces/${NS}/rolebindings`;
      return [
        await post(dave, roles, role('covered', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }])),
        await post(
          dave,
          roles,
          role('too-much', [
            { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'delete'] },
            { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a', 'b'] },
          ]),
        ),
        await post(
          dave,
          `${RBAC}/clusterroles`,
          role('urls', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]),
        ),
        await post(dave, `${RBAC}/clusterroles`, {
          metadata: { name: 'dave-agg' },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
        }),
        await post(dave, bindings, binding('to-admin', 'ClusterRole', 'cluster-admin')),
        await post(dave, bindings, binding('to-missing', 'Role', 'missing')),
        await post(dave, bindings, binding('to-covered', 'Role', 'covered')),
        await post(dave, bindings, binding('to-reader', 'ClusterRole', 'log-reader')),
        seen(
          await call(
            dave,
            'PATCH',
            `${roles}/covered`,
            { rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get'] }] },
            { 'content-type': 'application/merge-patch+json' },
          ),
        ),
        seen(
          await call(
            dave,
            'PATCH',
            `${roles}/covered`,
            { metadata: { finalizers: ['x.io/keep'] } },
            {
              'content-type': 'application/merge-patch+json',
            },
          ),
        ),
      ];
    });
    await onBoth(bs, async (b) => {
      await grant(b, 'dave-binds-log-reader', [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          verbs: ['bind'],
          resourceNames: ['log-reader'],
        },
      ]);
      await grant(b, 'dave-escalates-roles', [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] },
      ]);
      await davesCheck(b, 'escalate', 'roles');
      await davesCheck(b, 'bind', 'clusterroles', 'log-reader');
    });
    await same(async (b) => {
      const dave = as(b, 'dave-token');
      return [
        await post(
          dave,
          `${RBAC}/namespaces/${NS}/rolebindings`,
          binding('to-reader-2', 'ClusterRole', 'log-reader'),
        ),
        await post(
          dave,
          `${RBAC}/namespaces/${NS}/rolebindings`,
          binding('to-admin-2', 'ClusterRole', 'cluster-admin'),
        ),
        await post(
          dave,
          `${RBAC}/namespaces/${NS}/roles`,
          role('escalated', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]),
        ),
        await post(
          dave,
          `${RBAC}/clusterroles`,
          role('not-escalated', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]),
        ),
      ];
    });
  });
});
