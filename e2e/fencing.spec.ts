import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { budget, createFencePolicy, E2E_KUBECONFIG, infra, infraEndpoint, RESERVED, tile } from './helpers';

// The fencing flow in the console: a partitioned node running an orders-db pod (StatefulSet,
// RWO volume) is detected, fenced over IPMI with fence_ipmilan (the built-in power agent where
// the IPMI tools are missing), released, and the replacement runs elsewhere; the Fencing page,
// the map's tile and the node panel show it step by step. The e2e server starts without the
// demo policy (--fence-policy none), so this spec installs one that covers only its node.
const DOCS = resolve(import.meta.dirname, '..', 'docs');
const POLICY = 'e2e-fencing';
const ref = { group: 'palisade.dev', version: 'v1alpha1' };

function clients() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return { core: kc.makeApiClient(k8s.CoreV1Api), custom: kc.makeApiClient(k8s.CustomObjectsApi) };
}

/** A node running a Ready orders-db pod that no other spec breaks. */
async function ordersDbNode(core: k8s.CoreV1Api): Promise<{ node: string; pod: k8s.V1Pod }> {
  let found: { node: string; pod: k8s.V1Pod } | undefined;
  await expect(async () => {
    const pods = await core.listNamespacedPod({ namespace: 'shop' });
    const p = pods.items.find(
      (x) =>
        x.metadata?.name?.startsWith('orders-db-') &&
        !x.metadata.deletionTimestamp &&
        x.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
        !Object.values<string>(RESERVED).includes(x.spec?.nodeName ?? ''),
    );
    expect(p).toBeDefined();
    found = { node: p!.spec!.nodeName!, pod: p! };
  }).toPass({ timeout: 60_000 });
  return found!;
}

function agentFor(node: string): Record<string, unknown> {
  const ipmi = (
    infraEndpoint() as { ipmi?: Record<string, { host: string; port: number; username: string }> }
  ).ipmi;
  const ep = ipmi?.[node];
  if (!ep) return { type: 'power', action: 'off' };
  return {
    type: 'exec',
    agent: 'fence_ipmilan',
    action: 'off',
    sharedParameters: { '--lanplus': '', '--cipher': '3', '--username': ep.username },
    nodeParameters: { '--ip': { [node]: ep.host }, '--ipport': { [node]: String(ep.port) } },
    secretRefs: [{ name: 'palisade-bmc', key: 'password', parameter: '--password' }],
    credentialsNamespace: 'palisade-system',
  };
}

async function bmc(node: string, action: 'on') {
  const { url, token } = infraEndpoint();
  await fetch(`${url}/v1/bmc/${node}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
}

test('a partitioned node is fenced over IPMI, released, and its database pod runs elsewhere', async ({
  page,
}) => {
  test.setTimeout(budget(240_000));
  const { core, custom } = clients();
  const { node, pod } = await ordersDbNode(core);
  await createFencePolicy(POLICY, {
    selects: { 'kubernetes.io/hostname': node },
    unhealthyFor: '5s',
    // the policy covers one node: the default budget (51% healthy) would hold it for ever
    maxUnhealthy: 1,
    agent: agentFor(node),
    timeout: '30s',
  });
  try {
    await page.goto('/fencing');
    await expect(page.getByTestId(`policy-${POLICY}`)).toContainText(/fence_ipmilan|built-in power/);
    await infra(node, 'partition');

    const card = page.getByTestId(`fence-${node}`);
    await expect(card).toBeVisible({ timeout: 60_000 });
    await expect(card.getByTestId('fence-phase')).toHaveText('Released — needs repair', { timeout: 90_000 });
    // Released is not resolved: the card says what a person must do next, and what was released
    await expect(card.getByTestId('fence-next-step')).toHaveText(
      `Released — node ${node} is powered off and out of service: power on or repair it, then remove the out-of-service taint`,
    );
    await expect(card.getByTestId('fence-released')).toContainText(`shop/${pod.metadata!.name}`);
    await expect(card.getByTestId('fence-waiting')).toContainText('no pods and no volume attachments remain');
    // the agent's success was confirmed by a status query before anything was released
    await expect(card.getByTestId('fence-attempts')).toContainText('✓ power off');
    const done = card.getByTestId('fence-progress').locator('[data-state="done"]');
    await expect(done).toHaveCount(4); // Detected, Fencing, Fenced, Releasing
    await page.screenshot({ path: resolve(DOCS, 'console-fencing.png'), fullPage: true });

    // the replacement runs on another node
    await expect(async () => {
      const p = await core.readNamespacedPod({ name: pod.metadata!.name!, namespace: 'shop' });
      expect(p.metadata?.uid).not.toBe(pod.metadata?.uid);
      expect(p.spec?.nodeName).not.toBe(node);
      expect(p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).toBe(true);
    }).toPass({ timeout: 60_000 });

    // the map and the node panel say the node is fenced
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Map' }).click();
    await expect(tile(page, node)).toHaveAccessibleName(/fence: Released/);
    await expect(tile(page, node).getByTestId('node-fence')).toHaveText(
      'fence: released — power on or repair it',
    );
    await tile(page, node).click();
    await expect(page.getByTestId('node-panel-fence')).toContainText('Released');
  } finally {
    await custom
      .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: POLICY })
      .catch(() => undefined);
    await infra(node, 'heal');
    await bmc(node, 'on');
  }
  // back on: the fence is Recovered and the out-of-service taint is gone
  await expect(async () => {
    const n = await core.readNode({ name: node });
    expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/out-of-service') ?? false).toBe(false);
  }).toPass({ timeout: 60_000 });
  await custom.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: node }).catch(() => undefined);
});
