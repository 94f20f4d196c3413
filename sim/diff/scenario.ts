// Building blocks shared by the differential tests: namespaces that are ready for pods on
// both back ends, a validating webhook per back end, and a wait that needs no fixed sleep.
import { eventually } from '../apiserver/test/harness.js';
import { type TestWebhook, startWebhook } from '../apiserver/test/webhookServer.js';
import { type Backend, type Backends, call } from './backends.js';

/**
 * Create a namespace and wait for its `default` ServiceAccount: the ServiceAccount admission
 * plugin refuses pods until it exists (kube-controller-manager makes it on the real one).
 */
export async function namespace(b: Backend, name: string, labels: Record<string, string> = {}) {
  const r = await call(b, 'POST', '/api/v1/namespaces', { metadata: { name, labels } });
  if (r.code !== 201) throw new Error(`${b.name}: namespace ${name}: ${r.code} ${r.text}`);
  await eventually(
    async () => (await call(b, 'GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).code === 200,
    `${b.name}: default ServiceAccount in ${name}`,
    20_000,
  );
}

export const pod = (
  name: string,
  spec: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...meta },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...spec },
});

export interface Hooks {
  embedded: TestWebhook;
  real: TestWebhook;
  stop(): Promise<void>;
}

/** one webhook per back end, so each one's reviews are its own */
export async function startHooks(): Promise<Hooks> {
  const [embedded, real] = await Promise.all([startWebhook(), startWebhook()]);
  return { embedded, real, stop: async () => void (await Promise.all([embedded.stop(), real.stop()])) };
}

/** a fail-closed webhook for the given operations on pods in one namespace */
export async function registerHook(
  bs: Backends,
  hooks: Hooks,
  name: string,
  ns: string,
  operations: string[],
  resources = ['pods'],
) {
  for (const b of [bs.embedded, bs.real]) {
    const hook = hooks[b.name];
    const r = await call(b, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      metadata: { name },
      webhooks: [
        {
          name: `${name}.palisade.test`,
          clientConfig: { url: `${hook.url}/review`, caBundle: hook.caBundle },
          rules: [{ operations, apiGroups: [''], apiVersions: ['v1'], resources }],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
        },
      ],
    });
    if (r.code !== 201) throw new Error(`${b.name}: webhook ${name}: ${r.code} ${r.text}`);
  }
}
