import { describe, expect, it } from 'vitest';
import { aggregatedRules, sameRules } from './aggregation.js';

const role = (name: string, labels: Record<string, string>, rules: object[], selectors?: object[]) => ({
  metadata: { name, labels },
  rules: rules as never,
  ...(selectors ? { aggregationRule: { clusterRoleSelectors: selectors as never } } : {}),
});

describe('aggregatedRules (clusterrole-aggregation controller)', () => {
  const pods = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  const nodes = { verbs: ['list'], apiGroups: [''], resources: ['nodes'] };
  const metrics = { verbs: ['get'], nonResourceURLs: ['/metrics'] };
  const target = role('agg', {}, [], [{ matchLabels: { a: 'x' } }]);

  it('takes the matched roles in name order, each distinct rule once (measured on kube-controller-manager)', () => {
    const all = [
      target,
      role('part-b', { a: 'x' }, [pods, nodes]),
      role('part-a', { a: 'x' }, [nodes, metrics]),
      role('other', { a: 'y' }, [pods]),
    ];
    expect(aggregatedRules(target, all)).toEqual([nodes, metrics, pods]);
  });

  it('chains: a role matched by two selectors counts once; the target never takes its own rules', () => {
    const self = role(
      'agg',
      { a: 'x' },
      [metrics],
      [{ matchLabels: { a: 'x' } }, { matchExpressions: [{ key: 'b', operator: 'Exists' }] }],
    );
    const all = [self, role('p', { a: 'x', b: '1' }, [pods])];
    expect(aggregatedRules(self, all)).toEqual([pods]);
  });

  it('no match is no rules; absent and empty lists are the same rule', () => {
    expect(aggregatedRules(target, [target])).toEqual([]);
    expect(sameRules(null, [])).toBe(true);
    expect(sameRules([{ verbs: ['get'], resourceNames: [] }], [{ verbs: ['get'] }])).toBe(true);
    expect(sameRules([pods], [nodes])).toBe(false);
  });
});
