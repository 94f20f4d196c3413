import { describe, expect, it } from 'vitest';
import { judgeNamespace, judgeOptIn, missingGrantMessage, namespaceEnabled } from './scope.js';

const metrics = { kind: 'Deployment', namespace: 'monitoring', name: 'metrics' } as const;

describe('instance IDs: who takes part', () => {
  it.each([
    [[], 'monitoring', false],
    [['monitoring'], 'monitoring', true],
    [['shop'], 'monitoring', false],
    [['*'], 'kube-system', true],
  ] as const)('namespaces %j, %s: %s', (list, ns, want) => expect(namespaceEnabled(list, ns)).toBe(want));

  it('says how to add a namespace', () => {
    const d = judgeNamespace(['shop'], 'monitoring');
    expect(d.ok).toBe(false);
    expect(!d.ok && d.message).toMatch(
      /^namespace monitoring is not in palisade.yaml instanceIds.namespaces \(\[shop\]\)/,
    );
    const off = judgeNamespace([], 'monitoring');
    expect(!off.ok && off.message).toMatch(/\(empty: instance IDs are off\)/);
  });

  it('takes only workloads labelled to opt in', () => {
    expect(judgeOptIn(metrics, { 'palisade.dev/instance-ids-enabled': 'true' })).toEqual({ ok: true });
    for (const labels of [undefined, {}, { 'palisade.dev/instance-ids-enabled': 'false' }] as (
      | Record<string, string>
      | undefined
    )[]) {
      const d = judgeOptIn(metrics, labels);
      expect(!d.ok && d.message).toBe(
        'Deployment monitoring/metrics has not opted in to instance IDs: Palisade patches only workloads labelled palisade.dev/instance-ids-enabled=true (kubectl label deployment/metrics -n monitoring palisade.dev/instance-ids-enabled=true)',
      );
    }
  });

  it('names the grant a 403 says is missing', () =>
    expect(
      missingGrantMessage(
        { verbs: 'get, patch', resource: 'deployments.apps', namespace: 'monitoring', name: 'metrics' },
        'deployments.apps "metrics" is forbidden',
      ),
    ).toBe(
      'the API server forbade it (deployments.apps "metrics" is forbidden): grant Palisade\'s identity get, patch on deployments.apps in namespace monitoring (or a Role with resourceNames: [metrics])',
    ));
});
