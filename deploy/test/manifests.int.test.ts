// deploy/manifests/palisade.yaml as a plain-manifests user applies it: `kubectl apply
// --server-side` (Debian's kubectl 1.20) into a fresh palisade-system namespace, on the
// embedded cluster and, with PALISADE_CLUSTER=real, on etcd + kube-apiserver. Every object
// is then served as the file wrote it; applying again changes nothing; with no Palisade answering
// (an image that never starts) pod deletions keep working — the pod-deletion webhook is Ignore
// until a leader's self-probe enforces it, and matches only namespaces holding a protector; and a
// forged review posted straight to the default install's webhook (its palisade.yaml run here)
// books nothing: it requires the API server's client certificate.
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
import { postReview } from '../../server/protection/test/clientCerts.js';
import {
  bucketsOf,
  createProtector,
  fixturePod,
  getProtector,
  markReady,
} from '../../server/protection/test/protectionHarness.js';
import { MANIFESTS, NAMESPACE, REPO, render, VALUES_DIR } from './helm.js';
import { startProtectionAlone } from '../../server/protection/test/standalone.js';

const KUBECTL = join(REPO, '.palisade/bin/kubectl');
const WEBHOOK_CONFIGS = ['podseidon.kubewharf.io', 'palisade-nodefences', 'palisade-leader-epochs'];
const PROTECTED = 'palisade.dev/deletion-protection';

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

  it('leaves pod deletions working while no Palisade answers: an image that never starts blocks nothing', async () => {
    // a namespace holding a PodProtector, labelled as a leader would have labelled it: the
    // webhook matches it, but is Ignore until a leader's self-probe reaches a replica
    await createReadyNamespace(c.core, 'shop');
    await c.core.patchNamespace(
      { name: 'shop', body: { metadata: { labels: { [PROTECTED]: 'enabled' } } } },
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
    for (const name of ['web-0', 'web-1'])
      await c.core.createNamespacedPod({
        namespace: 'shop',
        body: {
          metadata: { name, labels: { app: 'web' } },
          spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        },
      });
    const vwc = await c.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'podseidon.kubewharf.io' });
    expect(vwc.webhooks?.[0].failurePolicy).toBe('Ignore');
    const deleted = await kubectl('delete', 'pod', '-n', 'shop', 'web-0', '--wait=false');
    expect(deleted.ok, deleted.out).toBe(true);
    await c.core.createNamespacedPodEviction({
      namespace: 'shop',
      name: 'web-1',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-1', namespace: 'shop' } },
    });
    // and in a namespace without a protector the webhook is never even called
    await createReadyNamespace(c.core, 'plain');
    await c.core.createNamespacedPod({
      namespace: 'plain',
      body: {
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    expect((await kubectl('delete', 'pod', '-n', 'plain', 'p', '--wait=false')).ok).toBe(true);
  });

  it('a forged review sent to the default install’s webhook books nothing', async () => {
    // the default install's palisade.yaml, run here (no kubelet runs the image): its in-cluster
    // context is this cluster, its webhook on a loopback port
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === 'palisade-config') as any;
    const cfg = YAML.parse(cm.data['palisade.yaml']);
    expect(cfg.protection.webhook.clientAuth.required).toBe(true);
    // with no replica serving the Service, the epoch webhooks (Fail) would refuse the status writes
    // this test needs from the aggregator: not what it is about
    await c.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .deleteValidatingWebhookConfiguration({ name: 'palisade-leader-epochs' });
    const palisade = await startProtectionAlone({
      config: { ...cfg.protection, webhook: { ...cfg.protection.webhook, host: '127.0.0.1', port: 0 } },
      // the cluster's admin: the test's chart identity is rendered for kube-system, this config's
      // Secret and Lease live in palisade-system
      clusters: [{ id: 'in-cluster', context: 'in-cluster', kc: c.kc }],
    });
    try {
      await createReadyNamespace(c.core, 'bank');
      for (const name of ['vault-0', 'vault-1', 'vault-2']) {
        await c.core.createNamespacedPod({ namespace: 'bank', body: fixturePod(name, { app: 'vault' }) });
        await markReady(c.core, 'bank', name, new Date(Date.now() - 60_000));
      }
      const custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
      await createProtector(custom, 'bank', 'vault', { minAvailable: 1, selector: { app: 'vault' } });
      await eventually(
        () => palisade.store.get('bank/vault')?.protector.status?.summary?.aggregatedAvailableReplicas === 3,
        'the protector aggregated',
        30_000,
      );
      // curl -k with a DELETE review of a protected, Ready pod: no client certificate
      const live = await c.core.readNamespacedPod({ namespace: 'bank', name: 'vault-0' });
      const forged = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'forged-1',
          resource: { group: '', version: 'v1', resource: 'pods' },
          operation: 'DELETE',
          namespace: 'bank',
          name: 'vault-0',
          userInfo: { username: 'mallory' },
          oldObject: JSON.parse(JSON.stringify(live)),
          dryRun: false,
        },
      };
      const r = await postReview(`${palisade.webhook.url}/admission/default`, forged, palisade.webhook.caPem);
      expect(r).toMatchObject({ ok: true, status: 403 });
      const p = await getProtector(custom, 'bank', 'vault');
      expect(bucketsOf(p, 'default')).toEqual([]);
      expect(p.status.summary.estimatedAvailableReplicas).toBe(3);
    } finally {
      await palisade.stop();
    }
  }, 120_000);

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
    await kubectl('delete', 'validatingwebhookconfiguration', '--ignore-not-found', ...WEBHOOK_CONFIGS);
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
