// The workload guard on a real kube-apiserver (PALISADE_CLUSTER=real; the embedded API server
// serves no ValidatingAdmissionPolicy): Palisade's ServiceAccount may patch Deployments,
// StatefulSets and Jobs (the generator's finalizer; the instance-ID map), which RBAC cannot
// narrow to a field — so the chart's policy lets those two changes through and refuses every
// other change that ServiceAccount makes to a workload (its pod template above all), while the
// admin's changes are untouched. Without the policy's binding, the same token rewrites the pod
// template: the guard is what stops it. The namespace guard beside it lets the same ServiceAccount
// set the protection label of a namespace and nothing else (never its Pod Security level).
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import {
  installChartRbac,
  kubeConfigAs,
  mintToken,
  objectsOf,
  renderRbac,
  servesAdmissionPolicies,
  TEST_VALUES,
} from './chart.js';

const NS = 'guarded';
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

let c: Awaited<ReturnType<typeof startScenario>>;
let apps: k8s.AppsV1Api;
let binding: k8s.V1ValidatingAdmissionPolicyBinding;

/** a merge patch of the Deployment `web` as Palisade's ServiceAccount: undefined, or the refusal's text */
async function asPalisade(body: object): Promise<string | undefined> {
  try {
    await apps.patchNamespacedDeployment({ namespace: NS, name: 'web', body }, merge);
    return undefined;
  } catch (e) {
    const raw = (e as { body?: string }).body ?? String(e);
    return (JSON.parse(raw) as { message?: string }).message ?? raw;
  }
}

beforeAll(async () => {
  if (!onRealControlPlane) return;
  c = await startScenario(`
name: workload-guard
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 1 }] }]
`);
  expect(await servesAdmissionPolicies(c.kc)).toBe(true);
  const rendered = await renderRbac({ values: TEST_VALUES, admissionPolicies: true });
  binding = objectsOf(rendered).find(
    (o) => o.kind === 'ValidatingAdmissionPolicyBinding',
  ) as k8s.V1ValidatingAdmissionPolicyBinding;
  await installChartRbac(c.kc, rendered, false);
  apps = kubeConfigAs(c.kc, await mintToken(c.kc)).makeApiClient(k8s.AppsV1Api);
  await c.core.createNamespace({ body: { metadata: { name: NS } } });
  await c.apps.createNamespacedDeployment({
    namespace: NS,
    body: {
      metadata: {
        name: 'web',
        labels: { 'podseidon.kubewharf.io/protect': 'true' },
        annotations: { team: 'shop' },
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    },
  });
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

const template = { spec: { template: { spec: { serviceAccountName: 'admin', hostPID: true } } } };

describe.skipIf(!onRealControlPlane)("the workload guard (Palisade's writes to workloads)", () => {
  it("lets the generator's finalizer and the instance-ID map through", async () => {
    // the policy reaches the API server's admission a moment after it is created: a change that
    // differs each try (a repeated one would be no change once it went through)
    let tries = 0;
    await eventually(
      async () => /spec/.test((await asPalisade({ spec: { revisionHistoryLimit: ++tries } })) ?? ''),
      'the guard in force',
      60_000,
    );
    expect(
      await asPalisade({ metadata: { finalizers: ['podseidon.kubewharf.io/generator'] } }),
    ).toBeUndefined();
    expect(
      await asPalisade({ metadata: { annotations: { 'palisade.dev/instance-ids': '{"0":"web-x"}' } } }),
    ).toBeUndefined();
    expect(await asPalisade({ metadata: { finalizers: [] } })).toBeUndefined();
  }, 90_000);

  it('refuses every other change, and only Palisade’s', async () => {
    expect(await asPalisade(template)).toContain(
      "Palisade's ServiceAccount may not change a workload's spec",
    );
    expect(await asPalisade({ spec: { replicas: 5 } })).toContain("may not change a workload's spec");
    expect(await asPalisade({ metadata: { labels: { 'podseidon.kubewharf.io/protect': null } } })).toContain(
      "may not change a workload's labels",
    );
    expect(await asPalisade({ metadata: { annotations: { team: 'attacker' } } })).toContain(
      'may change no annotation of a workload but palisade.dev/instance-ids',
    );
    expect(await asPalisade({ metadata: { finalizers: ['example.com/hold'] } })).toContain(
      'may add or remove no finalizer of a workload but podseidon.kubewharf.io/generator',
    );
    // the admin is not Palisade: the same template change goes through for them
    await c.apps.patchNamespacedDeployment(
      { namespace: NS, name: 'web', body: { spec: { replicas: 1 } } },
      merge,
    );
  });

  it("lets Palisade set a namespace's protection label, and change nothing else of it", async () => {
    const core = kubeConfigAs(c.kc, await mintToken(c.kc)).makeApiClient(k8s.CoreV1Api);
    await c.core.patchNamespace(
      { name: NS, body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } },
      merge,
    );
    const asPalisadeOnNs = async (body: object): Promise<string | undefined> => {
      try {
        await core.patchNamespace({ name: NS, body }, merge);
        return undefined;
      } catch (e) {
        const raw = (e as { body?: string }).body ?? String(e);
        return (JSON.parse(raw) as { message?: string }).message ?? raw;
      }
    };
    // the policy reaches admission a moment after it is created: probe with a change that differs
    // each try (a repeated one would be no change once an early try went through), then the real one
    let tries = 0;
    await eventually(
      async () =>
        /may change no label of a namespace/.test(
          (await asPalisadeOnNs({ metadata: { labels: { [`probe-${++tries}`]: 'x' } } })) ?? '',
        ),
      'the namespace guard in force',
      60_000,
    );
    const relax = { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } };
    expect(await asPalisadeOnNs(relax)).toMatch(/may change no label of a namespace/);
    expect(
      await asPalisadeOnNs({ metadata: { labels: { 'palisade.dev/deletion-protection': 'enabled' } } }),
    ).toBeUndefined();
    expect(await asPalisadeOnNs({ metadata: { annotations: { owner: 'attacker' } } })).toContain(
      "may not change a namespace's annotations",
    );
    const ns = await c.core.readNamespace({ name: NS });
    expect(ns.metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'palisade.dev/deletion-protection': 'enabled',
    });
  }, 90_000);

  it('without the guard, the same token rewrites the pod template', async () => {
    const admission = c.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await admission.deleteValidatingAdmissionPolicyBinding({ name: binding.metadata!.name! });
    try {
      await eventually(
        async () => (await asPalisade(template)) === undefined,
        'the template rewritten',
        30_000,
      );
      const d = await c.apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
      expect(d.spec?.template.spec?.serviceAccountName).toBe('admin');
    } finally {
      const { metadata, spec } = binding;
      await admission.createValidatingAdmissionPolicyBinding({
        body: { metadata: { name: metadata!.name, labels: metadata!.labels }, spec },
      });
    }
  });
});
