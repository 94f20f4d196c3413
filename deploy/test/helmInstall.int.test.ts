// The chart as Helm installs it, on the embedded cluster and (PALISADE_CLUSTER=real) on
// etcd + kube-apiserver: `helm install` creates every object of the release, and with no
// replica answering (no kubelet runs the image: an image that never starts) pod deletions keep
// working, in a namespace holding a PodProtector too; `helm upgrade` keeps the caBundle that
// Palisade's leader (or cainjector) wrote into the webhook configurations, which the chart never
// sets, and the failurePolicy the leader put in force; and `helm uninstall` after the documented
// `kubectl delete validatingwebhookconfiguration ...` removes the rest and keeps the CRDs.
// A fresh install with `fencing.policies` succeeds (the CRD and its objects in one release
// failed it): the policies go into palisade.yaml, and the leader, acting as the release's
// ServiceAccount with only its RBAC, creates them — and they stay after the uninstall.
//
// Real control plane only: helm 3.22's client-go (v0.37) writes its release Secret as protobuf,
// which the embedded API server does not decode (it speaks JSON, as kubectl and client-node do);
// the embedded cluster is covered by kubectl apply --server-side in manifests.int.test.ts.
import { epochWebhookConfiguration } from '../../server/leader/epochWebhook.js';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import { configSchema, leaderElectionOf } from '../../server/config/schema.js';
import { ConfigPolicies } from '../../server/fencing/configPolicies.js';
import { kubeConfigAs, mintToken } from '../../server/rbac/chart.js';
import { ControllerRuntime } from '../../server/runtime/runtime.js';
import { captureLogs } from '../../server/test/logCapture.js';
import YAML from 'yaml';
import { createReadyNamespace } from '../../server/test/namespaces.js';
import { CHART, helmBin, NAMESPACE } from './helm.js';

const WEBHOOK_CONFIGS = ['podseidon.kubewharf.io', 'palisade-nodefences', 'palisade-leader-epochs'];
const CRDS = [
  'podprotectors.podseidon.kubewharf.io',
  'fencepolicies.palisade.dev',
  'nodefences.palisade.dev',
  'incidents.palisade.dev',
];
/** a FencePolicy in the values, as an operator writes one */
const POLICY = {
  'fencing.policies.workers-ipmi.approval': 'Manual',
  'fencing.policies.workers-ipmi.agent.type': 'exec',
  'fencing.policies.workers-ipmi.agent.agent': 'fence_ipmilan',
  'fencing.policies.workers-ipmi.agent.secretRefs[0].name': 'bmc-credentials',
  'fencing.policies.workers-ipmi.agent.secretRefs[0].key': 'password',
  'fencing.policies.workers-ipmi.agent.secretRefs[0].parameter': '--password',
};
const policyRef = { group: GROUP, version: VERSION, plural: POLICY_PLURAL, name: 'workers-ipmi' };
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n').toString(
  'base64',
);

let c: Awaited<ReturnType<typeof startScenario>>;
let dir: string;
let admission: k8s.AdmissionregistrationV1Api;

beforeAll(async () => {
  if (!onRealControlPlane) return;
  c = await startScenario(`
name: helm-install-test
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 1 }] }]
`);
  dir = await mkdtemp(join(tmpdir(), 'palisade-helm-'));
  await writeFile(join(dir, 'kubeconfig'), c.apiserver.kubeconfig, { mode: 0o600 });
  admission = c.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  // the test cluster installs the CRDs when it starts; the chart installs them itself
  const ext = c.kc.makeApiClient(k8s.ApiextensionsV1Api);
  for (const name of CRDS) await ext.deleteCustomResourceDefinition({ name });
  await eventually(
    async () =>
      (
        await Promise.all(
          CRDS.map((name) =>
            ext.readCustomResourceDefinition({ name }).then(
              () => true,
              () => false,
            ),
          ),
        )
      ).every((there) => !there),
    'the CRDs gone',
    60_000,
  ).catch(async (e) => {
    // say what holds a CRD back (its finalizer's conditions: instances it could not delete)
    const left = await Promise.all(
      CRDS.map((name) => ext.readCustomResourceDefinition({ name }).catch(() => undefined)),
    );
    const why = left
      .filter((x) => x)
      .map((x) => `${x!.metadata?.name}: ${JSON.stringify(x!.status?.conditions)}`);
    throw new Error(`${(e as Error).message}\n${why.join('\n')}`);
  });
  // ...and their groups gone from discovery, as on a fresh cluster: a kind still listed there
  // would let helm map a FencePolicy before its CRD exists
  const apis = c.kc.makeApiClient(k8s.ApisApi);
  await eventually(
    async () =>
      !(await apis.getAPIVersions()).groups.some((g) =>
        ['palisade.dev', 'podseidon.kubewharf.io'].includes(g.name),
      ),
    "the CRDs' groups gone from discovery",
    60_000,
  );
});
afterAll(async () => {
  await c?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function helm(...args: string[]): Promise<{ ok: boolean; out: string }> {
  const env = {
    ...process.env,
    HOME: dir,
    HELM_CACHE_HOME: join(dir, 'cache'),
    HELM_CONFIG_HOME: join(dir, 'config'),
    HELM_DATA_HOME: join(dir, 'data'),
    KUBECONFIG: join(dir, 'kubeconfig'),
  };
  return new Promise((resolve) =>
    execFile(
      helmBin(),
      [...args, '--namespace', NAMESPACE],
      { env, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ ok: !err, out: stdout + stderr }),
    ),
  );
}

const caBundles = async () =>
  Promise.all(
    WEBHOOK_CONFIGS.map(async (name) =>
      (await admission.readValidatingWebhookConfiguration({ name })).webhooks!.map(
        (w) => w.clientConfig.caBundle,
      ),
    ),
  );

describe.skipIf(!onRealControlPlane)('helm install, upgrade, uninstall (real control plane)', () => {
  it('installs the release into a new namespace, with a FencePolicy in its values', async () => {
    // the test cluster already has palisade-viewer/-operator/-admin (deploy/rbac/palisade-roles.yaml,
    // bound to its demo users), which Helm will not adopt: the release leaves the people's roles out
    const policy = Object.entries(POLICY).map(([k, v]) => `${k}=${v}`);
    const r = await helm(
      'install',
      'palisade',
      CHART,
      '--create-namespace',
      '--set',
      ['rbac.peopleRoles=false', ...policy].join(','),
    );
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toContain('STATUS: deployed');
    // helm install sees that the cluster serves ValidatingAdmissionPolicies: the workload guard is in
    const guard = `palisade-${NAMESPACE}-workload-guard`;
    expect((await admission.readValidatingAdmissionPolicy({ name: guard })).metadata?.name).toBe(guard);
    // the notes say the first sign-in needs a binding
    expect(r.out).toContain(
      'kubectl create clusterrolebinding palisade-admin-<you> --clusterrole=palisade-admin',
    );
    const apps = c.kc.makeApiClient(k8s.AppsV1Api);
    const d = await apps.readNamespacedDeployment({ name: 'palisade', namespace: NAMESPACE });
    expect(d.spec?.replicas).toBe(3);
    for (const name of ['palisade', 'palisade-webhook'])
      expect((await c.core.readNamespacedService({ name, namespace: NAMESPACE })).metadata?.name).toBe(name);
    // the chart leaves caBundle to Palisade (self-managed) or cainjector
    expect((await caBundles()).flat().every((b) => !b)).toBe(true);
    // the CRDs are the release's, and established
    const ext = c.kc.makeApiClient(k8s.ApiextensionsV1Api);
    for (const name of CRDS) {
      const crd = await ext.readCustomResourceDefinition({ name });
      expect(crd.metadata?.annotations?.['meta.helm.sh/release-name']).toBe('palisade');
      expect(crd.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
    }
  });

  it("the leader creates the values' FencePolicy with the release's ServiceAccount and RBAC", async () => {
    const custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
    // not an object of the release: nothing made it yet
    await expect(custom.getClusterCustomObject(policyRef)).rejects.toMatchObject({ code: 404 });
    const cm = await c.core.readNamespacedConfigMap({ name: 'palisade-config', namespace: NAMESPACE });
    const config = configSchema.parse(YAML.parse(cm.data!['palisade.yaml']));
    const sa = kubeConfigAs(c.kc, await mintToken(c.kc, NAMESPACE, 'palisade'));
    // what a replica's leader runs: its Lease in the release namespace, the loop of palisade.yaml
    const logs = captureLogs();
    const runtime = new ControllerRuntime({
      election: leaderElectionOf(config.controllers),
      logger: logs.logger,
    });
    const policies = new ConfigPolicies({ kc: sa, policies: config.fencing!.policies!, logger: logs.logger });
    runtime.manager({ id: 'in-cluster', kc: sa }).add(policies.loop);
    try {
      const made = (await eventually(
        () => custom.getClusterCustomObject(policyRef).catch(() => undefined),
        'the FencePolicy created by the leader',
        30_000,
      )) as { spec: Record<string, any> };
      expect(made.spec).toMatchObject({
        approval: 'Manual',
        agent: { type: 'exec', agent: 'fence_ipmilan', credentialsNamespace: NAMESPACE },
      });
    } finally {
      await runtime.stop();
    }
  });

  it('with no replica answering (an image that never starts), pod deletions keep working', async () => {
    // the pod-deletion webhook is installed Ignore: only a leader's self-probe enforces it
    const hook = await admission.readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
    expect(hook.webhooks![0].failurePolicy).toBe('Ignore');
    // a namespace holding a PodProtector, labelled as a leader labels it: reviewed, not blocked
    await createReadyNamespace(c.core, 'shop');
    await c.core.patchNamespace(
      { name: 'shop', body: { metadata: { labels: { 'palisade.dev/deletion-protection': 'enabled' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await c.kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
      group: 'podseidon.kubewharf.io',
      version: 'v1alpha1',
      plural: 'podprotectors',
      namespace: 'shop',
      body: {
        apiVersion: 'podseidon.kubewharf.io/v1alpha1',
        kind: 'PodProtector',
        metadata: { name: 'web' },
        spec: { minAvailable: 5, selector: { matchLabels: { app: 'web' } } },
      },
    });
    for (const name of ['web-0', 'web-1', 'web-2'])
      await c.core.createNamespacedPod({
        namespace: 'shop',
        body: {
          metadata: { name, labels: { app: 'web' } },
          spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        },
      });
    await c.core.deleteNamespacedPod({ namespace: 'shop', name: 'web-0' });
    await c.core.createNamespacedPodEviction({
      namespace: 'shop',
      name: 'web-1',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-1', namespace: 'shop' } },
    });
    await c.core.deleteNamespacedPod({ namespace: 'shop', name: 'web-2', body: { dryRun: ['All'] } });
  });

  it('keeps the caBundle Palisade wrote when the release is upgraded', async () => {
    // what the leader does in self-managed mode: patch caBundle of each webhook (and, once its
    // self-probe reached a replica, the pod-deletion webhook's failurePolicy)
    for (const name of WEBHOOK_CONFIGS) {
      const cur = await admission.readValidatingWebhookConfiguration({ name });
      const patch: object[] = cur.webhooks!.map((_, i) => ({
        op: 'add',
        path: `/webhooks/${i}/clientConfig/caBundle`,
        value: CA,
      }));
      if (name === 'podseidon.kubewharf.io')
        patch.push({ op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Fail' });
      await admission.patchValidatingWebhookConfiguration(
        { name, body: patch },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      );
    }
    const policy = Object.entries(POLICY).map(([k, v]) => `${k}=${v}`);
    const r = await helm(
      'upgrade',
      'palisade',
      CHART,
      '--set',
      ['rbac.peopleRoles=false,clusterMode=read-only,webhook.timeoutSeconds=5', ...policy].join(','),
    );
    expect(r.ok, r.out).toBe(true);
    const hook = await admission.readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
    expect(hook.webhooks![0].timeoutSeconds).toBe(5);
    // an upgrade does not switch enforcement off (the chart looks the policy in force up)
    expect(hook.webhooks![0].failurePolicy).toBe('Fail');
    // pod deletions + self-probe, fences + FencePolicies, and each epoch hook (the code's list)
    const epochHooks = epochWebhookConfiguration('https://x', 'CA').webhooks!.length;
    expect((await caBundles()).flat()).toEqual(Array(4 + epochHooks).fill(CA));
  });

  it('uninstalls after the webhook configurations are deleted, keeping the CRDs', async () => {
    for (const name of WEBHOOK_CONFIGS) await admission.deleteValidatingWebhookConfiguration({ name });
    const r = await helm('uninstall', 'palisade');
    expect(r.ok, r.out).toBe(true);
    const apps = c.kc.makeApiClient(k8s.AppsV1Api);
    await expect(
      apps.readNamespacedDeployment({ name: 'palisade', namespace: NAMESPACE }),
    ).rejects.toMatchObject({
      code: 404,
    });
    // kept: deleting a CRD would delete every PodProtector, FencePolicy and NodeFence
    const crds = c.kc.makeApiClient(k8s.ApiextensionsV1Api);
    for (const name of CRDS)
      expect((await crds.readCustomResourceDefinition({ name })).metadata?.name).toBe(name);
    expect(r.out).toContain('kept due to the resource policy');
    // and the FencePolicy the leader made from the values (docs/install.md says so)
    const custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
    expect(await custom.getClusterCustomObject(policyRef)).toMatchObject({
      metadata: { name: 'workers-ipmi' },
    });
  });
});
