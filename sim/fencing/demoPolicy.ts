// The demo cluster's FencePolicy, so that partitioning a node in the console plays out end to end
// with no setup: detect after 10 s of Ready=Unknown (and a stale Lease), announce the fence for
// 10 s (the warning window: cancellable, or the policy paused), then fence over IPMI with the
// real fence_ipmilan against each node's ipmi_sim BMC, release by the out-of-service taint. The
// BMC password goes into a Secret the policy references, as a site would store it. Without the
// IPMI tools the policy uses the built-in power agent, and the log says how to get the real one.
import * as k8s from '@kubernetes/client-node';
import { API_VERSION, GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import type { Bmcs } from '../infra/ipmi/bmcs.js';
import { IPMI_INSTALL } from '../infra/ipmi/bmcs.js';
import { isConflict } from '../../lib/kube/errorText.js';

export const DEMO_POLICY = 'demo';
export const CREDENTIALS_NAMESPACE = 'palisade-system';
export const BMC_SECRET = 'palisade-bmc';

const common = {
  unhealthyConditions: [
    { type: 'Ready', status: 'Unknown', duration: '10s' },
    { type: 'Ready', status: 'False', duration: '10s' },
  ],
  approval: 'Automatic',
  retryCount: 3,
  retryInterval: '5s',
  timeout: '30s',
  releaseStrategy: 'OutOfServiceTaint',
  // announced for 10 s before the agent runs ("fenced automatically in N s unless cancelled")
  warningWindow: '10s',
};

/** An exec agent running fence_ipmilan against the nodes' BMCs (password from the BMC Secret). */
export function ipmiAgent(bmcs: Bmcs) {
  const eps = Object.entries(bmcs.endpoints());
  const byNode = (f: (e: (typeof eps)[number][1]) => string) =>
    Object.fromEntries(eps.map(([n, e]) => [n, f(e)]));
  return {
    type: 'exec',
    agent: 'fence_ipmilan',
    action: 'off',
    // --cipher=3 skips fence_ipmilan's slow cipher-suite probe
    sharedParameters: { '--lanplus': '', '--cipher': '3', '--username': eps[0]?.[1].username ?? 'palisade' },
    nodeParameters: { '--ip': byNode((e) => e.host), '--ipport': byNode((e) => String(e.port)) },
    secretRefs: [{ name: BMC_SECRET, key: 'password', parameter: '--password' }],
    credentialsNamespace: CREDENTIALS_NAMESPACE,
  };
}

async function createOrReplace(create: () => Promise<unknown>, replace: () => Promise<unknown>) {
  try {
    await create();
  } catch (e) {
    if (!isConflict(e)) throw e;
    await replace();
  }
}

/** The BMCs' password as a Secret in palisade-system, as a site would store it. */
export async function installBmcSecret(kc: k8s.KubeConfig, bmcs: Bmcs) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const password = Object.values(bmcs.endpoints())[0]?.password ?? '';
  await createOrReplace(
    () => core.createNamespace({ body: { metadata: { name: CREDENTIALS_NAMESPACE } } }),
    async () => undefined,
  );
  const secret = {
    metadata: { name: BMC_SECRET, namespace: CREDENTIALS_NAMESPACE },
    type: 'Opaque',
    data: { password: Buffer.from(password).toString('base64') },
  };
  await createOrReplace(
    () => core.createNamespacedSecret({ namespace: CREDENTIALS_NAMESPACE, body: secret }),
    () => core.replaceNamespacedSecret({ name: BMC_SECRET, namespace: CREDENTIALS_NAMESPACE, body: secret }),
  );
}

export async function installDemoFencePolicy(
  kc: k8s.KubeConfig,
  bmcs: Bmcs | undefined,
  log: (m: string) => void,
) {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  let agent: Record<string, unknown> = { type: 'power', action: 'off' };
  // the BMC Secret is installed with the BMCs (sim/cluster.ts)
  if (bmcs) agent = ipmiAgent(bmcs);
  else
    log(
      `fencing: IPMI tools missing, the demo FencePolicy uses the built-in power agent (for fence_ipmilan: ${IPMI_INSTALL})`,
    );
  const body = {
    apiVersion: API_VERSION,
    kind: 'FencePolicy',
    metadata: { name: DEMO_POLICY },
    spec: { ...common, agent },
  };
  const ref = { group: GROUP, version: VERSION, plural: POLICY_PLURAL };
  await createOrReplace(
    () => custom.createClusterCustomObject({ ...ref, body }),
    async () => {
      const old = (await custom.getClusterCustomObject({
        ...ref,
        name: DEMO_POLICY,
      })) as k8s.KubernetesObject;
      await custom.replaceClusterCustomObject({
        ...ref,
        name: DEMO_POLICY,
        body: { ...body, metadata: { ...body.metadata, resourceVersion: old.metadata?.resourceVersion } },
      });
    },
  );
  log(
    `fencing: FencePolicy ${DEMO_POLICY} (${bmcs ? 'fence_ipmilan over IPMI' : 'built-in power agent'}, automatic)`,
  );
}
