import { describe, expect, it } from 'vitest';
import {
  breakdownRule,
  compactRules,
  compactString,
  escalationError,
  ruleCovers,
  uncovered,
} from './escalation.js';
import type { PolicyRule } from './rules.js';

describe('escalation prevention (policy_comparator)', () => {
  it('breaks a rule down to one verb, group, resource and name each', () => {
    expect(
      breakdownRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }),
    ).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], resourceNames: ['a'] },
    ]);
    expect(breakdownRule({ verbs: ['get'], nonResourceURLs: ['/a', '/b*'] })).toEqual([
      { nonResourceURLs: ['/a'], verbs: ['get'] },
      { nonResourceURLs: ['/b*'], verbs: ['get'] },
    ]);
  });

  const sub = (o: PolicyRule) => o;
  it.each([
    [
      'verb *',
      { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
      sub({ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }),
      true,
    ],
    [
      'group *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] },
      sub({ verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }),
      true,
    ],
    [
      'resource *',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      sub({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }),
      true,
    ],
    [
      '*/sub covers the subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['*/log'] },
      sub({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }),
      true,
    ],
    [
      'a resource does not cover its subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      sub({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }),
      false,
    ],
    [
      'named owner does not cover all names',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      sub({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }),
      false,
    ],
    [
      'unnamed owner covers a name',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      sub({ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }),
      true,
    ],
    [
      'url prefix',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      sub({ verbs: ['get'], nonResourceURLs: ['/apis/x'] }),
      true,
    ],
    [
      'url * covers a url *',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      sub({ verbs: ['get'], nonResourceURLs: ['*'] }),
      true,
    ],
    [
      'a url is not a resource',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      sub({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }),
      false,
    ],
  ])('%s', (_, owner, s, want) => expect(ruleCovers(owner as PolicyRule, s)).toBe(want));

  it('compacts simple rules by verb and prints them as kube-apiserver does', () => {
    const missing = uncovered(
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [
        { verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      ],
    );
    expect(compactRules(missing).map(compactString)).toEqual([
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["list" "delete"]}',
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["b"], Verbs:["get"]}',
    ]);
  });

  it('names the user, the groups and the sorted missing rules', () => {
    const u = { username: 'dave', groups: ['system:authenticated'] };
    expect(
      escalationError(
        u,
        [],
        [
          { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
          { verbs: ['*'], nonResourceURLs: ['*'] },
        ],
      ),
    ).toBe(
      'user "dave" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
    );
    expect(
      escalationError(
        u,
        [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      ),
    ).toBeUndefined();
    expect(
      escalationError(u, [], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], 'x not found'),
    ).toMatch(/; resolution errors: \[x not found\]$/);
  });
});
