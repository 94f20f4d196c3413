// The Helm chart as an operator meets it: it lints clean, renders what the golden files hold
// for each value set, refuses a bad value naming the field, keeps deploy/manifests/palisade.yaml
// and its files/crds/ in step with the sources, and registers exactly the webhooks Palisade's code
// would register. UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../server/config/schema.js';
import { FENCE_WEBHOOK_PATHS, fenceWebhookConfiguration } from '../../server/fencing/approvalWebhook.js';
import { epochWebhookConfiguration } from '../../server/leader/epochWebhook.js';
import { PROBE_LABEL, PROBE_POD, webhookConfiguration } from '../../server/protection/register.js';
import {
  RELEASE_ID,
  RELEASE_LABEL,
  TRIGGER_POD,
  TRIGGER_POD_SPEC,
} from '../../server/protection/updateTrigger.js';
import { CHART, helm, MANIFESTS, NAMESPACE, REPO, render, VALUES_DIR } from './helm.js';

const GOLDEN = join(REPO, 'deploy/test/golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [k: string]: any };
  [k: string]: any;
};

const docs = (text: string): Obj[] =>
  YAML.parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter((d) => d);
const find = (objs: Obj[], kind: string, name?: string) => {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  if (!o) throw new Error(`no ${kind} ${name ?? ''} in the output`);
  return o;
};
const paletteYaml = (objs: Obj[]) =>
  YAML.parse(find(objs, 'ConfigMap', 'palisade-config').data['palisade.yaml']);

// the value sets with a golden file each: name -> helm arguments
const CASES: Record<string, string[]> = {
  defaults: [],
  'cert-manager': ['-f', join(VALUES_DIR, 'cert-manager.yaml')],
  production: ['-f', join(VALUES_DIR, 'production.yaml')],
};

describe('helm lint', () => {
  it.each(Object.entries(CASES))('%s: lints clean with --strict', async (_name, args) => {
    const r = await helm('lint', '--strict', CHART, '--namespace', NAMESPACE, ...args);
    expect(r.stderr + r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
    expect(r.code).toBe(0);
  });
});

describe('helm template', () => {
  it.each(Object.entries(CASES))('%s: renders what its golden file holds', async (name, args) => {
    const out = await render(...args);
    const file = join(GOLDEN, `${name}.yaml`);
    if (UPDATE || !existsSync(file)) await writeFile(file, out);
    expect(out, `${file} differs: run UPDATE_GOLDEN=1 npx vitest run deploy/test/ and review the diff`).toBe(
      await readFile(file, 'utf8'),
    );
  });

  it('refuses a bad value with the field named (template and lint)', async () => {
    const r = await helm('template', 'palisade', CHART, '-f', join(VALUES_DIR, 'bad-cluster-mode.yaml'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("at '/clusterMode': value must be one of 'normal', 'read-only', 'protected'");
    const lint = await helm('lint', '--strict', CHART, '-f', join(VALUES_DIR, 'bad-cluster-mode.yaml'));
    expect(lint.code).not.toBe(0);
    expect(lint.stdout).toContain("[ERROR] values.yaml: - at '/clusterMode'");
    for (const [set, field] of [
      ['webhook.certificates.mode=vault', '/webhook/certificates/mode'],
      ['console.session.idleTimeout=1d', '/console/session/idleTimeout'],
      ['protection.cellID=a/b', '/protection/cellID'],
      ['webhook.failurePolicy=fail', '/webhook/failurePolicy'],
      ['replicaCount=0', '/replicaCount'],
      ['webhok.failurePolicy=Fail', "additional properties 'webhok' not allowed"],
    ]) {
      const bad = await helm('template', 'palisade', CHART, '--set', set);
      expect(bad.code, set).not.toBe(0);
      expect(bad.stderr, set).toContain(field);
    }
  });

  it('refuses a PodDisruptionBudget that would never let a replica go', async () => {
    const r = await helm('template', 'palisade', CHART, '--set', 'replicaCount=2');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('podDisruptionBudget.minAvailable (2) must be less than replicaCount (2)');
    expect(
      (
        await helm(
          'template',
          'palisade',
          CHART,
          '--set',
          'replicaCount=2,podDisruptionBudget.minAvailable=1',
        )
      ).code,
    ).toBe(0);
  });

  it('refuses a webhook that would hear any caller: no client certificate and no NetworkPolicy fence', async () => {
    for (const set of [
      'webhook.clientAuth.required=false',
      'webhook.clientAuth.required=false,networkPolicy.enabled=false,networkPolicy.apiServerCIDRs={10.0.0.0/24}',
    ]) {
      const r = await helm('template', 'palisade', CHART, '--set', set);
      expect(r.code, set).not.toBe(0);
      expect(r.stderr, set).toContain(
        'webhook.clientAuth.required is false and no NetworkPolicy admits only the API servers',
      );
    }
    // fenced by where the API servers call from, or the risk accepted in so many words
    for (const set of [
      'webhook.clientAuth.required=false,networkPolicy.apiServerCIDRs={10.0.0.0/24}',
      'webhook.clientAuth.required=false,networkPolicy.apiServerFrom[0].podSelector.matchLabels.k8s-app=konnectivity-agent',
      'webhook.clientAuth.required=false,webhook.clientAuth.allowAnyCaller=true',
    ])
      expect((await helm('template', 'palisade', CHART, '--set', set)).code, set).toBe(0);
  });

  it('refuses OIDC sign-in without an issuer, a client ID and a Secret for the client secret', async () => {
    const r = await helm('template', 'palisade', CHART, '--set', 'auth.oidc.enabled=true');
    expect(r.code).not.toBe(0);
    for (const f of ['/auth/oidc/issuer', '/auth/oidc/clientID', '/auth/oidc/clientSecret/existingSecret'])
      expect(r.stderr).toContain(f);
  });

  it('deploy/manifests/palisade.yaml is `helm template palisade deploy/helm/palisade` (npm run manifests)', async () => {
    const r = await helm('template', 'palisade', CHART);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout, 'deploy/manifests/palisade.yaml is stale: run npm run manifests').toBe(
      await readFile(MANIFESTS, 'utf8'),
    );
  });

  it('the default render is a whole install: its namespace and the CRDs first, kept on uninstall', async () => {
    const objs = docs((await helm('template', 'palisade', CHART)).stdout);
    expect(objs[0]).toMatchObject({ kind: 'Namespace', metadata: { name: 'palisade-system' } });
    expect(objs[0].metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const crds = objs.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.map((o) => o.metadata.name).sort()).toEqual([
      'fencepolicies.palisade.dev',
      'incidents.palisade.dev',
      'nodefences.palisade.dev',
      'podprotectors.podseidon.kubewharf.io',
    ]);
    for (const o of [objs[0], ...crds])
      expect(o.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    // the sessions' own namespace, made by the chart too (not kept: the sessions end with the release)
    expect(objs[1]).toMatchObject({ kind: 'Namespace', metadata: { name: 'palisade-system-sessions' } });
    expect(objs[1].metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();
    // everything namespaced is in them, but the Role that reads node Leases where the kubelets keep them
    const namespaced = objs.filter((o) => o.metadata.namespace !== undefined);
    expect(new Set(namespaced.map((o) => o.metadata.namespace))).toEqual(
      new Set(['palisade-system', 'palisade-system-sessions', 'kube-node-lease']),
    );
    for (const ns of ['kube-node-lease', 'palisade-system-sessions'])
      expect(namespaced.filter((o) => o.metadata.namespace === ns).map((o) => o.kind)).toEqual([
        'Role',
        'RoleBinding',
      ]);
    // helm --namespace X: the release's namespace, which helm makes (--create-namespace); no Namespace object
    // for it (the sessions' one only)
    const inX = docs(await render());
    expect(inX.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual([
      `${NAMESPACE}-sessions`,
    ]);
    // and namespace.name puts everything elsewhere, creating it
    const elsewhere = docs(
      (await helm('template', 'palisade', CHART, '--set', 'namespace.name=safety')).stdout,
    );
    expect(elsewhere[0]).toMatchObject({ kind: 'Namespace', metadata: { name: 'safety' } });
  });

  it("the chart's files/crds/ are deploy/crds/ byte for byte", async () => {
    const src = (await readdir(join(REPO, 'deploy/crds'))).filter((f) => f.endsWith('.yaml')).sort();
    const copies = (await readdir(join(CHART, 'files/crds'))).sort();
    expect(copies, 'copy deploy/crds/*.yaml to deploy/helm/palisade/files/crds/').toEqual(src);
    for (const f of src)
      expect(
        await readFile(join(CHART, 'files/crds', f), 'utf8'),
        `files/crds/${f} drifted: copy it again`,
      ).toBe(await readFile(join(REPO, 'deploy/crds', f), 'utf8'));
  });
});

describe('what the chart installs', () => {
  it("registers the webhooks Palisade's code would register, reaching them through the Service", async () => {
    const objs = docs(await render());
    const service = (path: string) => ({
      service: { namespace: NAMESPACE, name: 'palisade-webhook', port: 443, path },
    });
    // the code's configurations with the Service instead of a URL and no CA (filled in later)
    const fromCode = (c: any, path: string) =>
      c.webhooks.map((w: any) => ({ ...w, clientConfig: service(path) }));
    const chart = (name: string) => find(objs, 'ValidatingWebhookConfiguration', name).webhooks;
    const pods = webhookConfiguration('https://x', 'CA');
    // installed with Ignore (the leader enforces it); the label ANDed with the values' selector
    expect(pods.webhooks![0].failurePolicy).toBe('Ignore');
    expect(chart('podseidon.kubewharf.io')).toEqual(
      fromCode(pods, '/admission/default').map((w: any) =>
        w.name === 'podseidon.kubewharf.io'
          ? {
              ...w,
              namespaceSelector: {
                ...w.namespaceSelector,
                matchExpressions: [
                  { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
                ],
              },
            }
          : w,
      ),
    );
    // two webhooks, each on its own path; the chart knows Palisade's ServiceAccount, so its own
    // FencePolicy writes (fencing.policies) skip the FencePolicy webhook
    expect(chart('palisade-nodefences')).toEqual(
      fenceWebhookConfiguration('https://x', 'CA').webhooks!.map((w: any) => ({
        ...w,
        clientConfig: service(`/${FENCE_WEBHOOK_PATHS[w.name]}/default`),
        ...(w.name === 'fencepolicies.palisade.dev'
          ? {
              matchConditions: [
                {
                  name: 'not-palisade',
                  expression: `request.userInfo.username != "system:serviceaccount:${NAMESPACE}:palisade"`,
                },
              ],
            }
          : {}),
      })),
    );
    expect(chart('palisade-leader-epochs')).toEqual(
      fromCode(epochWebhookConfiguration('https://x', 'CA'), '/epochs/default'),
    );
    // and its own pods carry the label the pod webhook leaves out
    const podLabels = find(objs, 'Deployment').spec.template.metadata.labels;
    const [expr] = pods.webhooks![0].objectSelector!.matchExpressions!;
    expect(podLabels[expr.key]).toBe(expr.values![0]);
    // the configurations Palisade patches the caBundle of are these three
    expect(paletteYaml(objs).protection.webhook.configurations.sort()).toEqual(
      objs
        .filter((o) => o.kind === 'ValidatingWebhookConfiguration')
        .map((o) => o.metadata.name)
        .sort(),
    );
  });

  it('authenticates the webhook by default: client certificates required, a NetworkPolicy on', async () => {
    const objs = docs(await render());
    expect(paletteYaml(objs).protection.webhook.clientAuth).toMatchObject({ required: true });
    const policy = find(objs, 'NetworkPolicy');
    expect(policy.spec.ingress.map((r: any) => r.ports[0].port)).toEqual([8443, 3000]);
    // the policy the leader enforces once it can: the chart itself ships Ignore
    expect(paletteYaml(objs).protection.webhook.failurePolicy).toBe('Fail');
    const pods = find(objs, 'ValidatingWebhookConfiguration', 'podseidon.kubewharf.io');
    expect(pods.webhooks[0].failurePolicy).toBe('Ignore');
  });

  it('generates a palisade.yaml the server accepts, for every value set', async () => {
    const lifetimes = [
      '--set',
      'webhook.certificates.validity=8760h,webhook.certificates.renewBefore=720h,webhook.certificates.ca.validity=43800h,webhook.certificates.ca.renewBefore=2160h,webhook.certificates.reloadDelay=2m',
    ];
    for (const [name, args] of [...Object.entries(CASES), ['lifetimes', lifetimes] as const]) {
      const parsed = configSchema.safeParse(paletteYaml(docs(await render(...args))));
      expect(parsed.error?.issues ?? [], name).toEqual([]);
    }
  });

  it("makes Podseidon's update-trigger pod as Palisade's code would, where palisade.yaml says", async () => {
    for (const args of [[], ['--set', 'rbac.updateTriggerNamespace=triggers']]) {
      const objs = docs(await render(...args));
      const pod = find(objs, 'Pod', TRIGGER_POD);
      expect(pod.spec).toEqual(TRIGGER_POD_SPEC);
      expect(pod.metadata.labels).toMatchObject({
        [RELEASE_LABEL]: RELEASE_ID,
        'podseidon-update-trigger-dummy-pod': 'true',
      });
      const trigger = paletteYaml(objs).protection.aggregator.updateTrigger;
      expect(pod.metadata.namespace).toBe(trigger.namespace);
      // and the webhook's probe pod beside it, which the leader's self-probe dry-run deletes
      const probe = find(objs, 'Pod', PROBE_POD);
      expect(probe.spec).toEqual(TRIGGER_POD_SPEC);
      expect(probe.metadata.labels).toMatchObject({ [RELEASE_LABEL]: RELEASE_ID, [PROBE_LABEL]: 'true' });
      expect(probe.metadata.namespace).toBe(trigger.namespace);
      // Palisade patches that pod, and creates none
      const role = find(objs, 'Role', 'palisade-update-trigger');
      expect(role.metadata.namespace).toBe(trigger.namespace);
      expect(role.rules).toEqual([
        { apiGroups: [''], resources: ['pods'], resourceNames: [TRIGGER_POD], verbs: ['patch'] },
      ]);
    }
    const off = docs(await render('--set', 'protection.aggregator.updateTrigger.enabled=false'));
    expect(
      off
        .filter((o) => o.kind === 'Pod' || o.metadata.name === 'palisade-update-trigger')
        .map((o) => o.metadata.name),
    ).toEqual([PROBE_POD]);
  });

  it('points palisade.yaml at the namespaces and Secrets its RBAC grants', async () => {
    const objs = docs(await render('--set', 'instanceIds.namespaces={shop,billing}'));
    const cfg = paletteYaml(objs);
    const roleIn = (name: string) => find(objs, 'Role', name).metadata.namespace;
    // sessions where their Role is; the key by the name its Role reads
    expect(cfg.server.session.store).toEqual({
      kind: 'kubernetes',
      namespace: roleIn('palisade-sessions'),
      keySecret: { namespace: NAMESPACE, name: 'palisade-session-key' },
    });
    expect(cfg.server.session.store.namespace).toBe(`${NAMESPACE}-sessions`);
    const key = find(objs, 'Role', 'palisade-session-key');
    expect(key.metadata.namespace).toBe(NAMESPACE);
    expect(key.rules.flatMap((r: any) => r.resourceNames ?? [])).toEqual(['palisade-session-key']);
    // instance IDs where their Roles are
    expect(cfg.instanceIds).toEqual({ namespaces: ['shop', 'billing'] });
    const workloads = objs.filter(
      (o) => o.kind === 'Role' && o.metadata.name === 'palisade-instance-id-workloads',
    );
    expect(workloads.map((o) => o.metadata.namespace).sort()).toEqual(['billing', 'shop']);
    expect(paletteYaml(docs(await render())).instanceIds).toEqual({ namespaces: [] });
    // fence agents' credentials from the namespace their Role is in (production: its policy's Secret)
    const prod = docs(await render(...CASES.production));
    const creds = find(prod, 'Role', 'palisade-fence-agent-credentials');
    expect(paletteYaml(prod).fencing.credentialsNamespaces).toEqual([creds.metadata.namespace]);
    expect(creds.rules[0].resourceNames).toEqual(['bmc-credentials']);
  });

  it('hands fencing.policies to the leader through palisade.yaml, never as objects of the release', async () => {
    const objs = docs(await render(...CASES.production));
    expect(objs.filter((o) => o.kind === 'FencePolicy')).toEqual([]);
    const policy = paletteYaml(objs).fencing.policies['workers-ipmi'];
    const values = YAML.parse(await readFile(join(VALUES_DIR, 'production.yaml'), 'utf8'));
    // as given, with the credentials namespace filled in for an exec agent
    expect(policy).toEqual({
      ...values.fencing.policies['workers-ipmi'],
      agent: { ...values.fencing.policies['workers-ipmi'].agent, credentialsNamespace: NAMESPACE },
    });
    // the leader may create policies, and read and replace these ones only
    const rules = find(objs, 'ClusterRole', `palisade-${NAMESPACE}-controllers`).rules.filter((r: any) =>
      r.resources.includes('fencepolicies'),
    );
    expect(rules).toEqual([
      { apiGroups: ['palisade.dev'], resources: ['fencepolicies'], verbs: ['list', 'watch'] },
      { apiGroups: ['palisade.dev'], resources: ['fencepolicies'], verbs: ['create'] },
      {
        apiGroups: ['palisade.dev'],
        resources: ['fencepolicies'],
        resourceNames: ['workers-ipmi'],
        verbs: ['get', 'update'],
      },
    ]);
  });

  it('rolls the pods when palisade.yaml changes, and only then', async () => {
    const checksum = async (...args: string[]) =>
      find(docs(await render(...args)), 'Deployment').spec.template.metadata.annotations['checksum/config'];
    const base = await checksum();
    expect(await checksum('--set', 'clusterMode=read-only')).not.toBe(base);
    expect(await checksum('--set', 'replicaCount=5')).toBe(base);
  });

  it('runs under Pod Security Admission "restricted" with a read-only root and /tmp writable', async () => {
    const pod = find(docs(await render()), 'Deployment').spec.template.spec;
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [c] = pod.containers;
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    const tmp = c.volumeMounts.find((m: any) => m.mountPath === '/tmp');
    expect(pod.volumes.find((v: any) => v.name === tmp.name).emptyDir).toBeDefined();
    // longer than the server's own stop: the preStop sleep, the webhook's drain (bounded by as
    // long again), then at most 10 s for the rest
    const sleep = c.lifecycle.preStop.sleep.seconds;
    expect(sleep).toBeGreaterThan(0);
    expect(paletteYaml(docs(await render())).protection.webhook.drainTimeout).toBe(`${sleep}s`);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(2 * sleep + 10);
  });

  it('takes extra env, volumes, mounts, args and a lifecycle hook, and securityContext overrides merged over the defaults', async () => {
    const pod = find(docs(await render('-f', join(VALUES_DIR, 'extensions.yaml'))), 'Deployment').spec
      .template.spec;
    const base = find(docs(await render()), 'Deployment').spec.template.spec;
    const [c] = pod.containers;
    const [b] = base.containers;
    // after the chart's own, never instead of them
    expect(c.args).toEqual([...b.args, '--log-level', 'debug']);
    expect(c.env.slice(0, b.env.length)).toEqual(b.env);
    expect(c.env.slice(b.env.length).map((e: any) => e.name)).toEqual(['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY']);
    expect(c.env.at(-1).valueFrom).toEqual({ secretKeyRef: { name: 'proxy', key: 'url' } });
    expect(pod.volumes).toEqual([...base.volumes, { name: 'extra-ca', configMap: { name: 'corporate-ca' } }]);
    expect(c.volumeMounts).toEqual([
      ...b.volumeMounts,
      { name: 'extra-ca', mountPath: '/etc/palisade-extra', readOnly: true },
    ]);
    expect(c.lifecycle).toEqual({ preStop: { exec: { command: ['/bin/sleep', '20'] } } });
    // merged: the user IDs dropped (null), the rest of "restricted" kept, SELinux added
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
      seLinuxOptions: { level: 's0:c123,c456' },
    });
    expect(c.securityContext).toEqual({ ...b.securityContext, seLinuxOptions: { level: 's0:c123,c456' } });
    // a volume named as the chart's, an env without a name: refused, naming the field
    for (const [set, field] of [
      ['extraVolumes[0].name=tmp,extraVolumes[0].emptyDir.medium=Memory', '/extraVolumes/0/name'],
      ['extraEnv[0].value=x', '/extraEnv/0'],
    ]) {
      const bad = await helm('template', 'palisade', CHART, '--set', set);
      expect(bad.code, set).not.toBe(0);
      expect(bad.stderr, set).toContain(field);
    }
  }, 60_000);

  it('in cert-manager mode every webhook configuration takes its CA from the Certificate that writes the serving Secret', async () => {
    const objs = docs(await render(...CASES['cert-manager']));
    const cert = find(objs, 'Certificate', 'palisade-webhook-serving');
    const secret = paletteYaml(objs).protection.webhook.certificates;
    expect(secret).toMatchObject({
      mode: 'cert-manager',
      secret: { namespace: NAMESPACE, name: cert.spec.secretName },
    });
    expect(cert.spec.dnsNames).toEqual([
      `palisade-webhook.${NAMESPACE}.svc`,
      `palisade-webhook.${NAMESPACE}.svc.cluster.local`,
    ]);
    const issuer = find(objs, 'Issuer', cert.spec.issuerRef.name);
    expect(issuer.spec.ca.secretName).toBe(find(objs, 'Certificate', 'palisade-webhook-ca').spec.secretName);
    for (const w of objs.filter((o) => o.kind === 'ValidatingWebhookConfiguration')) {
      expect(w.metadata.annotations['cert-manager.io/inject-ca-from']).toBe(
        `${NAMESPACE}/palisade-webhook-serving`,
      );
      for (const h of w.webhooks) expect(h.clientConfig.caBundle).toBeUndefined();
    }
  });

  it('mounts the OIDC client secret from the named Secret and points palisade.yaml at the file', async () => {
    const objs = docs(await render(...CASES.production));
    const cfg = paletteYaml(objs);
    const pod = find(objs, 'Deployment').spec.template.spec;
    const vol = pod.volumes.find((v: any) => v.secret?.secretName === 'palisade-oidc');
    expect(vol.secret.items).toEqual([{ key: 'client-secret', path: 'client-secret' }]);
    const mount = pod.containers[0].volumeMounts.find((m: any) => m.name === vol.name);
    expect(cfg.auth.oidc.clientSecretFile).toBe(`${mount.mountPath}/client-secret`);
    expect(cfg.auth.oidc.clientSecret).toBeUndefined();
    expect(cfg.server.publicURL).toBe('https://palisade.example.com');
    // and no Secret value anywhere in the output
    expect(objs.filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('gives the history’s PostgreSQL URL from the named Secret, never as a value', async () => {
    const objs = docs(await render(...CASES.production));
    const env = find(objs, 'Deployment').spec.template.spec.containers[0].env;
    expect(env.find((e: any) => e.name === 'PALISADE_POSTGRES_URL')).toEqual({
      name: 'PALISADE_POSTGRES_URL',
      valueFrom: { secretKeyRef: { name: 'palisade-history-db', key: 'url' } },
    });
    expect(paletteYaml(objs).storage).toEqual({ retention: '30d' });
    const defaults = docs(await render(...CASES.defaults));
    const plain = find(defaults, 'Deployment').spec.template.spec.containers[0].env;
    expect(plain.map((e: any) => e.name)).not.toContain('PALISADE_POSTGRES_URL');
    expect(paletteYaml(defaults).storage).toEqual({ retention: '14d' });
  });
});

describe('docs/install.md', () => {
  it('documents every value of values.yaml', async () => {
    const doc = await readFile(join(REPO, 'docs/install.md'), 'utf8');
    const values = YAML.parse(await readFile(join(CHART, 'values.yaml'), 'utf8'));
    // leaves, and maps whose keys are the user's (labels, annotations, policies, selectors)
    const OPEN = new Set([
      'resources',
      'namespaceSelector',
      'issuerRef',
      'policies',
      'labels',
      // Kubernetes objects merged over the chart's defaults: documented as a whole
      'podSecurityContext',
      'securityContext',
    ]);
    const paths: string[] = [];
    const walk = (o: any, at: string) => {
      for (const [k, v] of Object.entries(o)) {
        const p = at ? `${at}.${k}` : k;
        if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length && !OPEN.has(k))
          walk(v, p);
        else paths.push(p);
      }
    };
    walk(values, '');
    const missing = paths.filter((p) => !doc.includes(`| \`${p}\` |`));
    expect(missing, 'add these to the values reference in docs/install.md').toEqual([]);
  });
});
