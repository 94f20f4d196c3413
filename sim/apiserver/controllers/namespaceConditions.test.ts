import { describe, expect, it } from 'vitest';
import { mergeConditions, namespaceConditions, sameConditions } from './namespaceConditions.js';

const byType = (left: Parameters<typeof namespaceConditions>[0]) =>
  Object.fromEntries(namespaceConditions(left).map((c) => [c.type, c]));

describe('namespace conditions while terminating', () => {
  const cases = [
    {
      name: 'nothing left',
      left: [],
      content: ['False', 'ContentRemoved', 'All content successfully removed'],
      finalizers: ['False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
    },
    {
      name: 'two held config maps (as measured on kube-apiserver v1.34.10)',
      left: [
        { groupResource: 'configmaps.', finalizers: ['palisade.test/hold'] },
        { groupResource: 'configmaps.', finalizers: ['palisade.test/hold'] },
      ],
      content: [
        'True',
        'SomeResourcesRemain',
        'Some resources are remaining: configmaps. has 2 resource instances',
      ],
      finalizers: [
        'True',
        'SomeFinalizersRemain',
        'Some content in the namespace has finalizers remaining: palisade.test/hold in 2 resource instances',
      ],
    },
    {
      name: 'several resources and finalizers, sorted',
      left: [
        { groupResource: 'pods.', finalizers: [] },
        { groupResource: 'deployments.apps', finalizers: ['b/x', 'a/y'] },
      ],
      content: [
        'True',
        'SomeResourcesRemain',
        'Some resources are remaining: deployments.apps has 1 resource instances, pods. has 1 resource instances',
      ],
      finalizers: [
        'True',
        'SomeFinalizersRemain',
        'Some content in the namespace has finalizers remaining: a/y in 1 resource instances, b/x in 1 resource instances',
      ],
    },
  ];
  for (const t of cases)
    it(t.name, () => {
      const c = byType(t.left);
      const view = (x: { status: string; reason: string; message: string }) => [
        x.status,
        x.reason,
        x.message,
      ];
      expect(view(c.NamespaceContentRemaining)).toEqual(t.content);
      expect(view(c.NamespaceFinalizersRemaining)).toEqual(t.finalizers);
      expect(c.NamespaceDeletionContentFailure.reason).toBe('ContentDeleted');
    });

  it('keeps lastTransitionTime while a status holds', () => {
    const first = mergeConditions(undefined, namespaceConditions([]), 't1');
    const again = mergeConditions(first, namespaceConditions([]), 't2');
    expect(again.every((c) => c.lastTransitionTime === 't1')).toBe(true);
    expect(sameConditions(first, namespaceConditions([]))).toBe(true);
    const changed = mergeConditions(
      first,
      namespaceConditions([{ groupResource: 'pods.', finalizers: [] }]),
      't3',
    );
    expect(changed.find((c) => c.type === 'NamespaceContentRemaining')?.lastTransitionTime).toBe('t3');
  });
});
