import { describe, expect, it } from 'vitest';
import { type AccessAttributes, forbiddenMessage, selfSubjectAccessReview } from './forbidden.js';
import { sessionState } from './session.js';
import { mayNotWords } from './words.js';

describe('forbiddenMessage (kube-apiserver wording)', () => {
  const cases: [AccessAttributes, string][] = [
    [
      { verb: 'delete', resource: 'pods', namespace: 'shop', name: 'x' },
      'pods "x" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the namespace "shop"',
    ],
    [
      { verb: 'list', resource: 'pods' },
      'pods is forbidden: User "viewer" cannot list resource "pods" in API group "" at the cluster scope',
    ],
    [
      { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'shop', name: 'x' },
      'pods "x" is forbidden: User "viewer" cannot create resource "pods/eviction" in API group "" in the namespace "shop"',
    ],
    [
      { verb: 'approve', group: 'palisade.dev', resource: 'nodefences', name: 'a1-1' },
      'nodefences.palisade.dev "a1-1" is forbidden: User "viewer" cannot approve resource "nodefences" in API group "palisade.dev" at the cluster scope',
    ],
    [{ verb: 'get', path: '/metrics' }, 'forbidden: User "viewer" cannot get path "/metrics"'],
  ];
  it.each(cases)('%j', (a, want) => expect(forbiddenMessage(a, 'viewer')).toBe(want));

  it('appends the authorizer reason', () =>
    expect(forbiddenMessage({ verb: 'get', path: '/x' }, 'u', 'RBAC: boom')).toBe(
      'forbidden: User "u" cannot get path "/x": RBAC: boom',
    ));

  it('asks the cluster with the same attributes', () => {
    expect(selfSubjectAccessReview({ verb: 'get', path: '/metrics' }).spec).toEqual({
      nonResourceAttributes: { verb: 'get', path: '/metrics' },
    });
    expect(selfSubjectAccessReview({ verb: 'list', resource: 'pods', namespace: 'a' }).spec).toEqual({
      resourceAttributes: { verb: 'list', group: '', resource: 'pods', namespace: 'a' },
    });
  });
});

describe('sessionState', () => {
  const limits = { idleMs: 1000, absoluteMs: 5000 };
  it.each([
    [{ createdAt: 0, lastSeenAt: 0 }, 500, { alive: true, expiresAt: 1000 }],
    [{ createdAt: 0, lastSeenAt: 4500 }, 4800, { alive: true, expiresAt: 5000 }],
    [{ createdAt: 0, lastSeenAt: 0 }, 1000, { alive: false, ended: 'idle', at: 1000 }],
    [{ createdAt: 0, lastSeenAt: 4900 }, 5000, { alive: false, ended: 'absolute', at: 5000 }],
  ])('%j at %d', (s, now, want) => expect(sessionState(s, now, limits)).toEqual(want));
});

describe('mayNotWords', () => {
  it.each<[AccessAttributes, string[], string]>([
    [
      { verb: 'delete', resource: 'pods', namespace: 'shop' },
      ['oidc:shop-viewers', 'system:authenticated'],
      'you (oidc:alice, groups oidc:shop-viewers) may not delete pods in shop',
    ],
    [
      { verb: 'approve', group: 'palisade.dev', resource: 'nodefences', name: 'a1-1' },
      [],
      'you (oidc:alice) may not approve nodefences.palisade.dev "a1-1"',
    ],
    [{ verb: 'get', path: '/metrics' }, [], 'you (oidc:alice) may not get /metrics'],
  ])('%j', (a, groups, want) => expect(mayNotWords('oidc:alice', groups, a)).toBe(want));
});
