// The deletion-protection invariant on a running embedded cluster: with no webhook to stop
// them, two API deletions push a workload below its PodProtector's floor and the checker
// (watching the API like any client) reports it once, then sees it recover.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import type { Violation } from '../checker/checker.js';
import { PROTECTION_INVARIANT } from '../checker/protection.js';
import { type startScenario as Start, startScenario, tinyDurations } from './clusterHarness.js';

let c: Awaited<ReturnType<typeof Start>>;
beforeAll(async () => {
  // replacements take 3 s to become Ready, so the two deletions land before any of them counts
  c = await startScenario(`
name: protection-test
${tinyDurations}
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 2 }] }]
workloads:
  - kind: Deployment
    name: web
    replicas: 3
    readyAfter: 3s
    terminationGracePeriodSeconds: 1
`);
});
afterAll(() => c?.stop());

const ready = (p: k8s.V1Pod) =>
  !p.metadata?.deletionTimestamp &&
  p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');

async function readyPods() {
  const list = await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' });
  return list.items.filter(ready);
}

async function infraViolations(): Promise<Violation[]> {
  const res = await fetch(`${c.infraApi.url}/v1/violations`, {
    headers: { authorization: `Bearer ${c.infraApi.token}` },
  });
  return (await res.json()).violations;
}

describe('protected-workload-above-floor', () => {
  it('two API deletions under minAvailable = replicas - 1 give one violation', async () => {
    await eventually(async () => (await readyPods()).length === 3, 'three ready pods', 20_000);
    await c.kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
      group: 'podseidon.kubewharf.io',
      version: 'v1alpha1',
      namespace: 'default',
      plural: 'podprotectors',
      body: {
        apiVersion: 'podseidon.kubewharf.io/v1alpha1',
        kind: 'PodProtector',
        metadata: { name: 'web' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
      },
    });
    await eventually(
      () => c.protection.view.protectors('default').length === 1,
      'checker sees the protector',
    );

    const [a, b] = await readyPods();
    await Promise.all(
      [a, b].map((p) => c.core.deleteNamespacedPod({ name: p.metadata!.name!, namespace: 'default' })),
    );
    const [v] = await eventually(() => {
      const open = c.protection.list();
      return open.length ? open : undefined;
    }, 'a violation');
    expect(c.protection.list()).toHaveLength(1);
    expect(v).toMatchObject({ invariant: PROTECTION_INVARIANT, subject: 'default/web', evidence: [] });
    expect(v.message).toMatch(/left 1 available pods, below minAvailable 2 of PodProtector default\/web$/);
    expect((await infraViolations()).map((x) => x.id)).toContain(v.id);

    // the Deployment's replacements become available: the violation ends, no new one opens
    await eventually(() => c.protection.list()[0].until, 'violation closed', 20_000);
    expect(c.protection.list()).toHaveLength(1);
    expect(c.checker.list()).toEqual([]);
  });
});
