import { pinnedDeployment } from '../testenv/fixtures/deployment';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, type Page, test } from '@playwright/test';
import { core, E2E_KUBECONFIG, healAndWait, infra, RESERVED, tile, withNode, budget } from './helpers';
import { checkA11y } from './axe';

const DOCS = resolve(import.meta.dirname, '..', 'docs');

/**
 * The node this spec breaks: one of the zone-c nodes other specs reserve (zone c runs no
 * StatefulSet), shared with its owner through helpers.withNode, and one with no instance-ID pod
 * (metrics: after a partition its replacements wait for their instance IDs, so the cluster would
 * not be calm again soon). Earlier specs' partitions may have emptied it: pods of its own,
 * pinned to it, make sure it runs some.
 */
const CANDIDATES = [RESERVED.history, RESERVED.reconnect, RESERVED.screenshots];
const NS = 'e2e-incident';
const NAME = 'incident-probe';

async function quietNode(): Promise<string> {
  const pods = await core().listNamespacedPod({ namespace: 'monitoring' });
  const busy = new Set(pods.items.map((p) => p.spec?.nodeName));
  const node = CANDIDATES.find((n) => !busy.has(n));
  if (!node) throw new Error(`every candidate node runs a monitoring pod: ${CANDIDATES.join(', ')}`);
  return node;
}

function apps(): k8s.AppsV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return kc.makeApiClient(k8s.AppsV1Api);
}

/** Two pods pinned to `node`, Running; their names. */
async function podsPinnedTo(node: string): Promise<string[]> {
  const api = core();
  await removePinnedPods(); // an earlier run's, if it was killed
  await expect(async () => {
    await api.createNamespace({ body: { metadata: { name: NS } } });
  }).toPass({ timeout: 60_000 }); // 409 while an earlier one is still being deleted
  const labels = { app: NAME };
  await apps().createNamespacedDeployment({
    namespace: NS,
    body: pinnedDeployment(NAME, node, {
      terminationGracePeriodSeconds: 2,
      image: 'registry.example/probe:1',
    }),
  });
  // its Service: the incident view's service impact names it once its endpoints are not ready
  await api.createNamespacedService({
    namespace: NS,
    body: { metadata: { name: NAME }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
  });
  let running: string[] = [];
  await expect(async () => {
    const list = await api.listNamespacedPod({ namespace: NS, labelSelector: `app=${NAME}` });
    running = list.items
      .filter(
        (p) => p.spec?.nodeName === node && p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp,
      )
      .map((p) => `${NS}/${p.metadata!.name}`);
    expect(running.length).toBeGreaterThan(0);
  }).toPass({ timeout: 60_000 });
  return running;
}

async function removePinnedPods(): Promise<void> {
  await core()
    .deleteNamespace({ name: NS })
    .catch((e) => {
      if (e?.code !== 404) throw e;
    });
}

// The incident view through an incident: a partitioned node is counted, its pods are at risk with
// their safe next action (no FencePolicy covers the node in e2e, so: fence it first) and the force
// delete dialog says why not yet; the node has its remediation row; healed, all is calm again.
test('the incident view follows a partitioned node, then says nothing is broken', async ({ page }) => {
  test.setTimeout(budget(180_000));
  const node = await quietNode();
  await withNode(node, async () => {
    try {
      await incidentOn(page, node, await podsPinnedTo(node));
    } finally {
      await removePinnedPods();
    }
  });
});

async function incidentOn(page: Page, node: string, pods: string[]): Promise<void> {
  await page.goto('/');
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`), { timeout: 30_000 });
  try {
    await infra(node, 'partition');
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 30_000 });

    await page.getByRole('link', { name: 'Open incident view' }).click();
    await expect(page).toHaveURL(/\/incident$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Incident' })).toBeVisible();

    const situation = page.getByTestId('incident-situation');
    await expect(situation.getByTestId('incident-count-nodesNotReady')).toContainText(
      /^([1-9]\d* nodes|1 node) not Ready/,
    );
    await expect(situation.getByTestId('incident-count-podsOnFailedNodes')).toContainText(
      /^([1-9]\d* pods|1 pod) on them/,
    );
    // the trend only once a sample is old enough to compare with: never "no sample yet"
    await expect(situation.getByTestId('incident-count-nodesNotReady')).not.toContainText('no sample yet');
    // the headline names where: the node's zone (or rack) with one node down
    await expect(page.getByTestId('incident-status')).toContainText(/(zone-\w|rack \w\d).*down/);
    await expect(page.getByTestId('incident-freshness')).toContainText(/^data \d+s old/);
    await expect(page.getByTestId('incident-stale')).toHaveCount(0);

    const remediation = page.getByTestId(`incident-remediation-${node}`);
    await expect(remediation).toBeVisible({ timeout: 20_000 });
    await expect(remediation).toContainText('Unknown');
    await expect(remediation.getByTestId('incident-next-step')).toHaveText(
      `no FencePolicy covers ${node}: power it off or cut its storage, confirm, then mark it out of service`,
    );
    await expect(remediation.getByRole('link', { name: node })).toHaveAttribute('href', `/?node=${node}`);

    // one of its pods at risk, with the safe next action and what has to hold first
    const atRisk = page.getByTestId('incident-at-risk');
    const row = atRisk
      .getByTestId(new RegExp(`^incident-risk-pod/(${pods.map((p) => p.replace('/', '\\/')).join('|')})$`))
      .first();
    await expect(row).toBeVisible({ timeout: 20_000 });
    await expect(row.getByTestId('incident-next-action')).toHaveText(
      `fence ${node} first: no FencePolicy covers it (power it off, confirm, then mark it out of service)`,
    );
    const pre = row.getByRole('list', { name: 'Preconditions' });
    await expect(pre).toContainText('a FencePolicy covers the node: not yet');
    await expect(pre).toContainText('the node is fenced (powered off or cut from its storage): not yet');
    // the Service whose two pods sit on the node: no ready endpoint left
    const service = page
      .getByTestId('incident-services')
      .getByTestId('incident-service')
      .filter({ hasText: NAME });
    await expect(service).toContainText('0 of 2', { timeout: budget(30_000) });
    await expect(service).toContainText(`(${node}, down)`);
    await page
      .getByTestId('incident-services')
      .screenshot({ path: resolve(DOCS, 'console-incident-services.png') });
    await checkA11y(page, 'incident view during an incident');

    // the guarded dialog, the existing one, explains why a force delete is not safe yet
    await row.getByRole('button', { name: 'Force delete…' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(`node ${node} is not fenced`);
    // and offers the safe way to the same end: fence the node (issue 25, finding 7)
    await dialog.getByRole('button', { name: `Fence ${node} now instead…` }).click();
    await expect(page.getByRole('dialog')).toContainText(`Fence node now: ${node}`);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    // the taint manager evicts the node's pods once their toleration (20 s) runs out: the row
    // follows live (their replacements, pinned to the node, start once it is healed)
    await expect(row).toContainText('(Terminating)', { timeout: 45_000 });
  } finally {
    await healAndWait(node);
  }
  await expect(page.getByTestId(`incident-remediation-${node}`)).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('incident-calm')).toContainText('Nothing is broken', { timeout: 90_000 });
  await expect(page.getByTestId('incident-at-risk')).toContainText('Nothing is at risk.');
  await checkA11y(page, 'incident view during an incident');

  // the remediation rows' links open the node on the map
  await page.goto(`/?node=${node}`);
  await expect(page.getByRole('complementary', { name: `Node ${node}` })).toBeVisible();
}
