// deploy/manifests/palisade.yaml as a plain-manifests user applies it: `kubectl apply
// --server-side` (Debian's kubectl 1.20) into a fresh palisade-system namespace, on the
// embedded cluster and, with PALISADE_CLUSTER=real, on etcd + kube-apiserver. Every object
// is then served as the file wrote it; applying again changes nothing; and the uninstall order
// docs/install.md gives matters: while the webhook configurations exist and no Palisade answers,
// pod deletions in the selected namespaces are refused (failurePolicy Fail); deleting the
// configurations first lets them through again.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane, serviceAccountReady } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { createReadyNamespace } from '../../server/test/namespaces.js';
import { TRIGGER_POD_SPEC } from '../../server/protection/updateTrigger.js';
import { MANIFESTS, NAMESPACE, REPO, render, VALUES_DIR } from './helm.js';

const KUBECTL = join(REPO, '.palisade/bin/kubectl');
const WEBHOOK_CONFIGS = ['podseidon.kubewharf.io', 'palisade-nodefences', 'palisade-leader-epochs'];

let c: Awaited<ReturnType<typeof startScenario>>;
let dir: string;
let objects: k8s.KubernetesObject[];

beforeAll(async () => {
  c = await startScenario(`
name: manifests-test
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 1 }] }]
`);
  dir = await mkdtemp(join(tmpdir(), 'palisade-manifests-'));
  await writeFile(join(dir, 'kubeconfig'), c.apiserver.kubeconfig, { mode: 0o600 });
  objects = YAML.parseAllDocuments(await readFile(MANIFESTS, 'utf8'))
    .map((d) => d.toJS())
    .filter((d) => d);
});
afterAll(async () => {
  await c?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function kubectl(...args: string[]): Promise<{ ok: boolean; out: string }> {
  if (!existsSync(KUBECTL)) throw new Error(`kubectl not found at ${KUBECTL}: run scripts/ensure-kubectl.sh`);
  const kubeconfig = join(dir, 'kubeconfig');
  return new Promise((resolve) =>
    execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
      { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}` }),
    ),
  );
}

describe('kubectl apply --server-side -f deploy/manifests/palisade.yaml', () => {
  it('creates every object in the namespace, served as the file wrote it', async () => {
    // the file makes its own namespace: nothing to create first
    const applied = await kubectl('apply', '--server-side', '-f', MANIFESTS);
    expect(applied.out).not.toMatch(/error/i);
    expect(applied.ok).toBe(true);
    expect(applied.out.trim().split('\n')).toHaveLength(objects.length);
    expect(
      applied.out
        .trim()
        .split('\n')
        .every((l) => l.endsWith(' serverside-applied')),
    ).toBe(true);

    const api = k8s.KubernetesObjectApi.makeApiClient(c.kc);
    for (const want of objects) {
      const got = (await api.read(want as any)) as any;
      const what = `${want.kind} ${want.metadata?.name}`;
      expect(got.metadata.namespace, what).toBe((want as any).metadata.namespace);
      expect(got.metadata.labels, what).toMatchObject(want.metadata?.labels ?? {});
      // what matters of each kind, as written
      const w = want as any;
      if (w.kind === 'ValidatingWebhookConfiguration') expect(got.webhooks, what).toMatchObject(w.webhooks);
      if (w.kind === 'Deployment') expect(got.spec.template.spec, what).toMatchObject(w.spec.template.spec);
      if (w.kind === 'Service') expect(got.spec.ports, what).toMatchObject(w.spec.ports);
      if (w.kind === 'PodDisruptionBudget' || w.kind === 'ConfigMap')
        expect(got.spec ?? got.data, what).toEqual(w.spec ?? w.data);
      if (w.kind === 'CustomResourceDefinition') expect(got.spec.names, what).toEqual(w.spec.names);
    }
  });

  it('applies again without a change', async () => {
    const versions = async () => {
      const r = await kubectl(
        'get',
        '-f',
        MANIFESTS,
        '-o',
        'jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion} {end}',
      );
      expect(r.ok, r.out).toBe(true);
      return r.out;
    };
    // kube-controller-manager writes the Deployment's and the PodDisruptionBudget's status and
    // fills the aggregated roles after the first apply, seconds later on a loaded machine: wait
    // until nothing moves for 3 s, so a change below is the apply's own
    const before = await eventually(
      async () => {
        const a = await versions();
        await new Promise((r) => setTimeout(r, 3_000));
        return a === (await versions()) ? a : undefined;
      },
      'the applied objects settled',
      90_000,
    );
    const again = await kubectl('apply', '--server-side', '-f', MANIFESTS);
    expect(again.ok, again.out).toBe(true);
    expect(await versions()).toBe(before);
  });

  it('blocks pod deletions while no Palisade answers, until the webhook configurations are deleted', async () => {
    await createReadyNamespace(c.core, 'shop');
    await c.core.createNamespacedPod({
      namespace: 'shop',
      body: {
        metadata: { name: 'web' },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    const refused = await kubectl('delete', 'pod', '-n', 'shop', 'web', '--wait=false');
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain('podseidon.kubewharf.io');
    // uninstall, webhook configurations first (docs/install.md)
    const deleted = await kubectl('delete', 'validatingwebhookconfiguration', ...WEBHOOK_CONFIGS);
    expect(deleted.ok, deleted.out).toBe(true);
    await eventually(
      async () => (await kubectl('delete', 'pod', '-n', 'shop', 'web', '--wait=false')).ok,
      'pod deletion admitted',
    );
  });

  it('applies the production value set too: Ingress, NetworkPolicy, OIDC mounts, a FencePolicy for the leader', async () => {
    // (no ServiceMonitor or PrometheusRule: those kinds come with prometheus-operator)
    const file = join(dir, 'production.yaml');
    const text = await render(
      '-f',
      join(VALUES_DIR, 'production.yaml'),
      '--set',
      'metrics.serviceMonitor.enabled=false,metrics.prometheusRule.enabled=false',
    );
    await writeFile(file, text);
    const applied = await kubectl('apply', '--server-side', '-f', file);
    expect(applied.ok, applied.out).toBe(true);
    for (const what of ['ingress.networking.k8s.io/palisade', 'networkpolicy.networking.k8s.io/palisade'])
      expect(applied.out).toContain(`${what} serverside-applied`);
    // the FencePolicy is the leader's to create (a fresh install cannot hold a CRD's objects): in palisade.yaml
    expect(applied.out).not.toContain('fencepolicy.palisade.dev');
    const cm = await kubectl('get', 'configmap', '-n', NAMESPACE, 'palisade-config', '-o', 'json');
    const config = YAML.parse(JSON.parse(cm.out).data['palisade.yaml']);
    expect(Object.keys(config.fencing.policies)).toEqual(['workers-ipmi']);
    const netpol = await kubectl('get', 'networkpolicy', '-n', NAMESPACE, 'palisade', '-o', 'json');
    expect(JSON.parse(netpol.out).spec.ingress[0].from).toEqual([{ ipBlock: { cidr: '10.0.0.0/24' } }]);
    await kubectl('delete', 'validatingwebhookconfiguration', ...WEBHOOK_CONFIGS);
  });

  // kube-apiserver's PodSecurity admission (the embedded API server has none)
  it.skipIf(!onRealControlPlane)(
    "Palisade's pods and its update-trigger pod run under Pod Security 'restricted'",
    async () => {
      const deployment = objects.find((o) => o.kind === 'Deployment') as any;
      const ns = 'psa-restricted';
      await c.core.createNamespace({
        body: { metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
      });
      await serviceAccountReady(c.core, ns);
      const pod = (name: string, spec: object) => ({ metadata: { name }, spec });
      // a replica as the Deployment makes it (dry run: admitted, nothing stored); under the
      // namespace's default ServiceAccount, which Pod Security does not look at
      await c.core.createNamespacedPod({
        namespace: ns,
        body: pod('palisade', { ...deployment.spec.template.spec, serviceAccountName: 'default' }) as any,
        dryRun: 'All',
      });
      // Podseidon's update-trigger pod, which the chart makes in Palisade's namespace
      await c.core.createNamespacedPod({
        namespace: ns,
        body: pod('podseidon-update-trigger', TRIGGER_POD_SPEC) as any,
        dryRun: 'All',
      });
      // and the level is enforced: a pod that asks for root is refused
      const refused = await c.core
        .createNamespacedPod({
          namespace: ns,
          body: pod('root', { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] }) as any,
          dryRun: 'All',
        })
        .then(
          () => undefined,
          (e) => e as { code: number; body: string },
        );
      expect(refused?.code).toBe(403);
      expect(refused?.body).toContain('violates PodSecurity');
    },
  );
});
