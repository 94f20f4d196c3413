import { describe, expect, it } from 'vitest';
import { type RequestAttributes, requestAttributes } from './attributes.js';
import { forbidden } from './forbidden.js';
import { type Binding, RbacAuthorizer, type RbacSource } from './rbac.js';
import { type PolicyRule, aggregateErrors, appliesTo, describeBinding, ruleAllows } from './rules.js';

const q = (s = '') => new URLSearchParams(s);

describe('requestAttributes (RequestInfoFactory)', () => {
  const cases: [string, string, string, Partial<RequestAttributes>][] = [
    ['GET', '/api/v1/namespaces/default/pods', '', { verb: 'list', resource: 'pods', namespace: 'default' }],
    ['GET', '/api/v1/pods', '', { verb: 'list', resource: 'pods', namespace: '' }],
    ['GET', '/api/v1/namespaces/default/pods/x', '', { verb: 'get', resource: 'pods', name: 'x' }],
    ['DELETE', '/api/v1/namespaces/default/pods/x', '', { verb: 'delete', name: 'x' }],
    ['DELETE', '/api/v1/namespaces/default/pods', '', { verb: 'deletecollection', name: '' }],
    ['GET', '/api/v1/namespaces/default/pods', 'watch=true', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/default/pods', 'watch=1', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/default/pods', 'watch=yes', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/default/pods', 'watch=false', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/default/pods', 'watch=0', { verb: 'list' }],
    [
      'GET',
      '/api/v1/watch/namespaces/default/pods',
      '',
      { verb: 'watch', resource: 'pods', namespace: 'default' },
    ],
    [
      'GET',
      '/api/v1/namespaces/default/pods',
      'fieldSelector=metadata.name%3Dfoo',
      { verb: 'list', name: 'foo' },
    ],
    [
      'GET',
      '/api/v1/namespaces/default/pods',
      'fieldSelector=metadata.name!%3Dfoo',
      { verb: 'list', name: '' },
    ],
    [
      'POST',
      '/api/v1/namespaces/default/pods/x/eviction',
      '',
      { verb: 'create', subresource: 'eviction', name: 'x' },
    ],
    ['PATCH', '/api/v1/namespaces/default/pods/x/status', '', { verb: 'patch', subresource: 'status' }],
    [
      'GET',
      '/api/v1/namespaces/default',
      '',
      { verb: 'get', resource: 'namespaces', name: 'default', namespace: 'default' },
    ],
    [
      'GET',
      '/api/v1/namespaces/default/status',
      '',
      { resource: 'namespaces', subresource: 'status', namespace: 'default' },
    ],
    ['GET', '/api/v1/namespaces', '', { verb: 'list', resource: 'namespaces', namespace: '' }],
    ['GET', '/apis/apps/v1/namespaces/d/deployments/w/scale', '', { apiGroup: 'apps', subresource: 'scale' }],
    ['GET', '/apis/palisade.dev/v1alpha1/nodefences', '', { apiGroup: 'palisade.dev', verb: 'list' }],
    ['POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token', '', { verb: 'create', subresource: 'token' }],
  ];
  it.each(cases)('%s %s?%s', (method, path, query, want) => {
    const a = requestAttributes(method, path, q(query));
    expect(a.resourceRequest).toBe(true);
    expect(a).toMatchObject(want);
  });

  it.each([
    ['GET', '/metrics', 'get'],
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/apis/apps', 'get'],
    ['GET', '/apis/apps/v1', 'get'],
    ['POST', '/logs/x', 'post'],
    ['GET', '/healthz', 'get'],
  ])('%s %s is a non-resource request', (method, path, verb) => {
    expect(requestAttributes(method, path, q())).toMatchObject({ resourceRequest: false, verb, path });
  });
});

const res = (o: Partial<RequestAttributes>): RequestAttributes => ({
  verb: 'get',
  resourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'ns',
  name: '',
  ...o,
});
const nonRes = (verb: string, path: string): RequestAttributes =>
  res({ verb, path, resourceRequest: false, resource: '' });

describe('ruleAllows (rbac/v1 helpers)', () => {
  const cases: [string, PolicyRule, RequestAttributes, boolean][] = [
    ['verb listed', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res({}), true],
    ['verb not listed', { verbs: ['list'], apiGroups: [''], resources: ['pods'] }, res({}), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res({ verb: 'approve' }), true],
    [
      'custom verb',
      { verbs: ['approve'], apiGroups: ['palisade.dev'], resources: ['nodefences'] },
      res({ verb: 'approve', apiGroup: 'palisade.dev', resource: 'nodefences' }),
      true,
    ],
    ['group mismatch', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, res({}), false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }, res({}), true],
    [
      'resource *',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      res({ subresource: 'status' }),
      true,
    ],
    [
      'resource does not cover subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      res({ subresource: 'status' }),
      false,
    ],
    [
      'subresource named',
      { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
      res({ verb: 'create', subresource: 'eviction' }),
      true,
    ],
    [
      '*/scale',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      res({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }),
      true,
    ],
    [
      '*/scale is not */status',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      res({ apiGroup: 'apps', resource: 'deployments', subresource: 'status' }),
      false,
    ],
    [
      '*/scale is not the resource',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      res({ apiGroup: 'apps', resource: 'deployments' }),
      false,
    ],
    [
      'resourceNames match',
      {
        verbs: ['override'],
        apiGroups: ['palisade.dev'],
        resources: ['guards'],
        resourceNames: ['detachVolume'],
      },
      res({ verb: 'override', apiGroup: 'palisade.dev', resource: 'guards', name: 'detachVolume' }),
      true,
    ],
    [
      'resourceNames other',
      {
        verbs: ['override'],
        apiGroups: ['palisade.dev'],
        resources: ['guards'],
        resourceNames: ['detachVolume'],
      },
      res({ verb: 'override', apiGroup: 'palisade.dev', resource: 'guards', name: 'x' }),
      false,
    ],
    [
      'resourceNames never allow a list',
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      res({ verb: 'list' }),
      false,
    ],
    [
      'non-resource exact',
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      nonRes('get', '/metrics'),
      true,
    ],
    [
      'non-resource other',
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      nonRes('get', '/metrics/x'),
      false,
    ],
    [
      'non-resource trailing *',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      nonRes('get', '/apis/apps/v1'),
      true,
    ],
    [
      'non-resource prefix needs the slash',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      nonRes('get', '/apis'),
      false,
    ],
    ['non-resource *', { verbs: ['*'], nonResourceURLs: ['*'] }, nonRes('post', '/anything'), true],
    ['non-resource rule never allows a resource', { verbs: ['*'], nonResourceURLs: ['*'] }, res({}), false],
    [
      'resource rule never allows a path',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      nonRes('get', '/api'),
      false,
    ],
  ];
  it.each(cases)('%s', (_, rule, a, want) => expect(ruleAllows(a, rule)).toBe(want));
});

describe('subjects and reasons', () => {
  const alice = { username: 'alice', groups: ['dev', 'system:authenticated'] };
  const sa = { username: 'system:serviceaccount:ns1:robot', groups: [] };
  it.each([
    [alice, [{ kind: 'User', name: 'alice' }], '', 'alice'],
    [
      alice,
      [
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'dev' },
      ],
      '',
      'dev',
    ],
    [sa, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'ns1' }], '', 'robot'],
    [sa, [{ kind: 'ServiceAccount', name: 'robot' }], 'ns1', 'robot'],
    [sa, [{ kind: 'ServiceAccount', name: 'robot' }], '', undefined],
    [sa, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'ns2' }], 'ns1', undefined],
    [alice, [{ kind: 'Group', name: 'ops' }], '', undefined],
  ])('appliesTo %#', (user, subjects, ns, want) => expect(appliesTo(user, subjects, ns)?.name).toBe(want));

  it('describes bindings as SubjectAccessReview reasons do', () => {
    const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    expect(describeBinding({ name: 'b', roleRef: ref }, { kind: 'User', name: 'alice' })).toBe(
      'ClusterRoleBinding "b" of ClusterRole "view" to User "alice"',
    );
    expect(
      describeBinding({ name: 'b', namespace: 'ns', roleRef: ref }, { kind: 'ServiceAccount', name: 'r' }),
    ).toBe('RoleBinding "b/ns" of ClusterRole "view" to ServiceAccount "r/ns"');
  });

  it('aggregates errors as Go does', () => {
    expect(aggregateErrors(['a'])).toBe('a');
    expect(aggregateErrors(['a', 'b', 'a'])).toBe('[a, b]');
  });
});

describe('forbidden (responsewriters.Forbidden)', () => {
  const u = { username: 'u', groups: [] };
  it.each([
    [
      res({ verb: 'delete', name: 'x' }),
      'pods "x" is forbidden: User "u" cannot delete resource "pods" in API group "" in the namespace "ns"',
      { name: 'x', kind: 'pods' },
    ],
    [
      res({ verb: 'list', namespace: '' }),
      'pods is forbidden: User "u" cannot list resource "pods" in API group "" at the cluster scope',
      { kind: 'pods' },
    ],
    [
      res({ verb: 'create', name: 'x', subresource: 'eviction' }),
      'pods "x" is forbidden: User "u" cannot create resource "pods/eviction" in API group "" in the namespace "ns"',
      { name: 'x', kind: 'pods' },
    ],
    [
      res({ verb: 'approve', apiGroup: 'palisade.dev', resource: 'nodefences', name: 'f', namespace: '' }),
      'nodefences.palisade.dev "f" is forbidden: User "u" cannot approve resource "nodefences" in API group "palisade.dev" at the cluster scope',
      { name: 'f', group: 'palisade.dev', kind: 'nodefences' },
    ],
    [nonRes('get', '/metrics'), 'forbidden: User "u" cannot get path "/metrics"', {}],
  ])('%#', (a, message, details) => {
    const e = forbidden({ ...a, user: u });
    expect(e.code).toBe(403);
    expect(e.toStatus()).toMatchObject({ reason: 'Forbidden', message, details });
    expect(e.toStatus().details).toEqual(details);
  });

  it("appends the authorizer's reason", () => {
    expect(forbidden({ ...res({ verb: 'list' }), user: u }, 'RBAC: x').message).toBe(
      'pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "ns": RBAC: x',
    );
  });
});

describe('RbacAuthorizer', () => {
  const rules: Record<string, PolicyRule[]> = {
    reader: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    deleter: [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }],
  };
  const crbs: Binding[] = [
    {
      name: 'a-missing',
      namespace: '',
      roleRef: { kind: 'ClusterRole', name: 'gone' },
      subjects: [{ kind: 'User', name: 'alice' }],
    },
    {
      name: 'b-readers',
      namespace: '',
      roleRef: { kind: 'ClusterRole', name: 'reader' },
      subjects: [{ kind: 'Group', name: 'readers' }],
    },
  ];
  const rbs: Binding[] = [
    {
      name: 'del',
      namespace: 'ns1',
      roleRef: { kind: 'ClusterRole', name: 'deleter' },
      subjects: [{ kind: 'User', name: 'alice' }],
    },
    {
      name: 'local',
      namespace: 'ns1',
      roleRef: { kind: 'Role', name: 'nope' },
      subjects: [{ kind: 'User', name: 'bob' }],
    },
  ];
  let reads = 0;
  const src: RbacSource = {
    clusterRoleBindings: () => {
      reads++;
      return crbs;
    },
    roleBindings: (ns) => rbs.filter((b) => b.namespace === ns),
    clusterRoleRules: (n) => rules[n],
    roleRules: () => undefined,
  };
  const authz = new RbacAuthorizer(src);
  const alice = { username: 'alice', groups: ['readers'] };

  it('a cluster grant applies everywhere, a RoleBinding to a ClusterRole only in its namespace', () => {
    expect(authz.authorize({ ...res({ verb: 'list', namespace: '' }), user: alice })).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "b-readers" of ClusterRole "reader" to Group "readers"',
    });
    expect(
      authz.authorize({ ...res({ verb: 'delete', namespace: 'ns1', name: 'p' }), user: alice }).reason,
    ).toBe('RBAC: allowed by RoleBinding "del/ns1" of ClusterRole "deleter" to User "alice"');
    expect(authz.authorize({ ...res({ verb: 'delete', namespace: 'ns2', name: 'p' }), user: alice })).toEqual(
      {
        allowed: false,
        reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
      },
    );
  });

  it('a denial names every missing role that applied', () => {
    expect(
      authz.authorize({ ...res({ verb: 'watch', namespace: 'ns1' }), user: { username: 'bob', groups: [] } }),
    ).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "nope" not found',
    });
    expect(authz.authorize({ ...res({ verb: 'watch', namespace: 'ns1' }), user: alice }).reason).toBe(
      'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it('compiles a user once until invalidated', () => {
    const before = reads;
    for (let i = 0; i < 5; i++) authz.authorize({ ...res({ verb: 'get' }), user: alice });
    expect(reads).toBe(before);
    authz.invalidate();
    authz.authorize({ ...res({ verb: 'get' }), user: alice });
    expect(reads).toBe(before + 1);
  });

  it('lists the rules that apply in a namespace', () => {
    expect(authz.rulesFor(alice, 'ns1')).toEqual({
      rules: [...rules.reader, ...rules.deleter],
      errors: ['clusterrole.rbac.authorization.k8s.io "gone" not found'],
    });
  });
});
