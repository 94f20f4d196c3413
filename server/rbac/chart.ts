// The chart's identity for tests: render the chart's RBAC templates with helm, apply them (and
// a test-only registration role, see below) with kubectl's server-side apply as the cluster's
// admin, mint a token for the chart's ServiceAccount with the TokenRequest API and hand back a
// kubeconfig that acts only as that ServiceAccount. With PALISADE_TEST_IDENTITY=chart the
// harnesses (server/test/identity.ts) give Palisade that kubeconfig instead of the admin's, while
// the tests' own setup (pods, nodes, faults) stays on the admin's.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { serviceAccountReady } from '../../sim/apiserver/test/harness.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHART_DIR = join(ROOT, 'deploy/helm/palisade');
export const KUBECTL = join(ROOT, '.palisade/bin/kubectl');

/**
 * Where the tests' Palisade keeps its Lease, serving Secret and sessions (the config defaults,
 * kube-system), so the chart is rendered as a release in that namespace.
 */
export const TEST_RELEASE_NAMESPACE = 'kube-system';
export const SERVICE_ACCOUNT = 'palisade';
export const SERVICE_ACCOUNT_USER = `system:serviceaccount:${TEST_RELEASE_NAMESPACE}:${SERVICE_ACCOUNT}`;

/** the chart's default sessions namespace for the tests' release (console.session.namespace) */
export const TEST_SESSION_NAMESPACE = `${TEST_RELEASE_NAMESPACE}-sessions`;

/** the Secrets the tests' exec fence agents read: the least-privilege test's, the demo policy's */
export const TEST_CREDENTIAL_SECRETS = ['bmc', 'palisade-bmc'];

/** the FencePolicies the tests' palisade.yaml defines (server/fencing/test/configPolicies.int.test.ts) */
export const TEST_CONFIG_POLICIES = ['from-config', 'taken-over'];

/**
 * the values the tests install with: the update trigger where the tests' config puts it, the
 * fence agents' credentials where the tests' FencePolicies read them, by name, and the
 * FencePolicies of the tests' palisade.yaml (their names are what the RBAC grants)
 */
export const TEST_VALUES: Record<string, string> = {
  'rbac.updateTriggerNamespace': 'default',
  'rbac.fenceAgentCredentials.namespace': 'palisade-system',
  'rbac.fenceAgentCredentials.secretNames': `{${TEST_CREDENTIAL_SECRETS.join(',')}}`,
  ...Object.fromEntries(TEST_CONFIG_POLICIES.map((p) => [`fencing.policies.${p}.agent.type`, 'power'])),
};

/** OIDC sign-in on (impersonation is granted only then): the values the schema requires with it */
export const OIDC_VALUES: Record<string, string> = {
  'auth.oidc.enabled': 'true',
  'auth.oidc.issuer': 'https://dex.example.com',
  'auth.oidc.clientID': 'palisade',
  'auth.oidc.clientSecret.existingSecret': 'palisade-oidc',
};

/**
 * Every value set whose RBAC the rule list must cover (server/rbac/chart.test.ts): the defaults,
 * what the tests install, the documented examples, and each value that adds a rule.
 */
export const VALUE_SETS: Record<string, { values?: Record<string, string>; files?: string[] }> = {
  defaults: {},
  tests: { values: TEST_VALUES },
  'least-privilege test': {
    values: {
      ...TEST_VALUES,
      ...OIDC_VALUES,
      'rbac.impersonation.groups[0]': 'palisade-oncall',
      'instanceIds.namespaces[0]': 'shop',
      'fencing.policies.lp-config.agent.type': 'power',
    },
  },
  production: { files: [join(CHART_DIR, '../../test/values/production.yaml')] },
  'cert-manager': { files: [join(CHART_DIR, '../../test/values/cert-manager.yaml')] },
  'OIDC with groups': { values: { ...OIDC_VALUES, 'rbac.impersonation.groups': '{sre,db-oncall}' } },
  'instance IDs in two namespaces': { values: { 'instanceIds.namespaces': '{shop,billing}' } },
  'instance IDs everywhere': { values: { 'instanceIds.namespaces[0]': '*' } },
};

/**
 * The tests register their webhooks themselves (protection.webhook.register true, a URL rather
 * than the chart's Service), which the chart never does: its configurations come with the
 * chart and Palisade only patches their caBundle. This role stands in for the chart's
 * ValidatingWebhookConfiguration objects and is not part of what the chart grants.
 */
export const TEST_REGISTRATION_ROLE = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: palisade-test-webhook-registration
rules:
  - apiGroups: [admissionregistration.k8s.io]
    resources: [validatingwebhookconfigurations]
    verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: palisade-test-webhook-registration
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: palisade-test-webhook-registration
subjects:
  - kind: ServiceAccount
    name: ${SERVICE_ACCOUNT}
    namespace: ${TEST_RELEASE_NAMESPACE}
`;

let helmBin: Promise<string> | undefined;

/** helm from testenv/ (HELM_BIN_DIR when test.sh exported it; else built or taken from its cache) */
export function helm(): Promise<string> {
  helmBin ??= (async () => {
    if (process.env.HELM_BIN_DIR) return join(process.env.HELM_BIN_DIR, 'helm');
    const { stdout } = await run(
      'bash',
      ['-c', 'eval "$(bash testenv/build.sh helm)" && echo "$HELM_BIN_DIR"'],
      {
        cwd: ROOT,
        maxBuffer: 16 << 20,
      },
    );
    return join(stdout.trim().split('\n').pop()!, 'helm');
  })();
  return helmBin;
}

/**
 * `helm template` of the chart's RBAC templates (the rest of the chart is another concern), and
 * of the update-trigger pod, which the chart makes so that Palisade need not create pods.
 */
export async function renderRbac(
  o: {
    namespace?: string;
    values?: Record<string, string>;
    files?: string[];
    /** the cluster serves ValidatingAdmissionPolicies: the workload guard is rendered (helm install sees it) */
    admissionPolicies?: boolean;
  } = {},
): Promise<string> {
  const args = ['template', 'palisade', CHART_DIR, '--namespace', o.namespace ?? TEST_RELEASE_NAMESPACE];
  // helm's own default is an old version the chart's kubeVersion refuses
  args.push('--kube-version', '1.34.0');
  if (o.admissionPolicies) args.push('--api-versions', ADMISSION_POLICY_API);
  for (const f of o.files ?? []) args.push('-f', f);
  for (const [k, v] of Object.entries(o.values ?? {})) args.push('--set', `${k}=${v}`);
  const { stdout } = await run(await helm(), args, { maxBuffer: 16 << 20 });
  // the documents of those templates (--show-only refuses a template that renders nothing)
  const mine = /^# Source: [^/\n]+\/templates\/(rbac\/[^\n]+|update-trigger\.yaml)$/m;
  return stdout
    .split(/^---$/m)
    .filter((d) => mine.test(d))
    .join('---');
}

/** the kind `helm install` finds in a cluster that serves ValidatingAdmissionPolicies (1.30+) */
export const ADMISSION_POLICY_API = 'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';

/** Whether the cluster serves ValidatingAdmissionPolicies (kube-apiserver 1.30+; not the embedded one). */
export async function servesAdmissionPolicies(kc: k8s.KubeConfig): Promise<boolean> {
  const r = await kc.makeApiClient(k8s.AdmissionregistrationV1Api).getAPIResources();
  return r.resources.some((x) => x.name === 'validatingadmissionpolicies');
}

/** The objects of a multi-document YAML text (empty documents dropped). */
export function objectsOf(yaml: string): k8s.KubernetesObject[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as k8s.KubernetesObject | null)
    .filter((o): o is k8s.KubernetesObject => !!o?.kind);
}

function kubectl(kubeconfig: string, args: string[], stdin: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, out }));
    child.stdin.end(stdin);
  });
}

/**
 * kubectl apply --server-side (Debian's kubectl 1.20, scripts/ensure-kubectl.sh), YAML on stdin.
 * An API server without server-side apply (the embedded one answers 415 to apply patches) gets
 * kubectl's client-side apply instead, which `how` tells.
 */
export async function kubectlApply(
  kubeconfig: string,
  yaml: string,
): Promise<{ how: 'server-side' | 'client-side'; out: string }> {
  if (!existsSync(KUBECTL)) throw new Error(`kubectl not found at ${KUBECTL}: run scripts/ensure-kubectl.sh`);
  const ssa = await kubectl(
    kubeconfig,
    ['apply', '--server-side', '--force-conflicts', '--field-manager', 'palisade-test', '-f', '-'],
    yaml,
  );
  if (ssa.code === 0) return { how: 'server-side', out: ssa.out };
  if (!/Server-side apply not available/.test(ssa.out))
    throw new Error(`kubectl apply --server-side failed (${ssa.code}):\n${ssa.out}`);
  const csa = await kubectl(kubeconfig, ['apply', '-f', '-'], yaml);
  if (csa.code !== 0) throw new Error(`kubectl apply failed (${csa.code}):\n${csa.out}`);
  return { how: 'client-side', out: csa.out };
}

/** A token of the ServiceAccount (TokenRequest: serviceaccounts/<name>/token). */
export async function mintToken(
  admin: k8s.KubeConfig,
  namespace = TEST_RELEASE_NAMESPACE,
  name = SERVICE_ACCOUNT,
) {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const r = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 6 * 3600 } },
  });
  const token = r.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  return token;
}

/**
 * The admin kubeconfig with every user replaced by the token: same clusters, same context
 * names (tests and palisade.yaml name cells by context).
 */
export function kubeConfigAs(admin: k8s.KubeConfig, token: string): k8s.KubeConfig {
  const out = new k8s.KubeConfig();
  out.loadFromOptions({
    clusters: admin.getClusters(),
    users: [{ name: 'palisade-chart-serviceaccount', token }],
    contexts: admin.getContexts().map((c) => ({ ...c, user: 'palisade-chart-serviceaccount' })),
    currentContext: admin.getCurrentContext(),
  });
  return out;
}

/**
 * Apply the chart's RBAC objects (as rendered) as the admin, and the test registration role
 * unless `registration` is false.
 */
export async function installChartRbac(admin: k8s.KubeConfig, rendered?: string, registration = true) {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-rbac-'));
  try {
    const path = join(dir, 'kubeconfig');
    await writeFile(path, admin.exportConfig());
    const yaml =
      rendered ??
      (await renderRbac({ values: TEST_VALUES, admissionPolicies: await servesAdmissionPolicies(admin) }));
    // the chart's update-trigger pod needs its namespace's default ServiceAccount (a fresh
    // cluster's controller makes it a moment after start)
    const core = admin.makeApiClient(k8s.CoreV1Api);
    for (const pod of objectsOf(yaml).filter((o) => o.kind === 'Pod'))
      await serviceAccountReady(core, pod.metadata!.namespace!);
    // FencePolicies' default credentialsNamespace, which the tests' exec agents read from
    const ns = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: palisade-system\n';
    await kubectlApply(path, `${ns}---\n${yaml}${registration ? `\n---\n${TEST_REGISTRATION_ROLE}` : ''}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const identities = new Map<string, Promise<k8s.KubeConfig>>();

/** The chart ServiceAccount's kubeconfig for this cluster: installed and minted once per cluster. */
export function chartIdentity(admin: k8s.KubeConfig): Promise<k8s.KubeConfig> {
  const server = admin.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig has no current cluster');
  let p = identities.get(server);
  if (!p) {
    p = (async () => {
      await installChartRbac(admin);
      return kubeConfigAs(admin, await mintToken(admin));
    })();
    identities.set(server, p);
    p.catch(() => identities.delete(server));
  }
  return p;
}
