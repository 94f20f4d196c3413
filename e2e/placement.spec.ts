// The incident view's Placement (issue 25, item 4): a workload whose ready replicas all share one
// node is flagged with the safe rebalance, and Evict sends it through the guarded dialog and the
// one seam — the Eviction API, so budgets decide — and its ReplicaSet replaces the pod. The
// Deployment is the spec's own, in a namespace of its own, pinned to one Ready node of the demo
// cluster: nothing of another spec moves.
import { pinnedDeployment } from '../testenv/fixtures/deployment';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { checkA11y } from './axe';
import { budget, E2E_KUBECONFIG } from './helpers';

const DOCS = resolve(import.meta.dirname, '..', 'docs');
const NS = 'e2e-placement';
const NAME = 'e2e-spread';

function clients() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return { core: kc.makeApiClient(k8s.CoreV1Api), apps: kc.makeApiClient(k8s.AppsV1Api) };
}

const live = async () =>
  (await clients().core.listNamespacedPod({ namespace: NS, labelSelector: `app=${NAME}` })).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  );

async function cleanUp() {
  const { core } = clients();
  await core.deleteNamespace({ name: NS }).catch(() => undefined);
  await expect(async () => {
    expect(await core.readNamespace({ name: NS }).catch(() => undefined)).toBeUndefined();
  }).toPass({ timeout: budget(60_000) });
}

test.beforeAll(cleanUp);
test.afterAll(cleanUp);

test('two replicas on one node are flagged, and Evict moves one through the Eviction API', async ({
  page,
}) => {
  test.setTimeout(budget(150_000));
  const { core, apps } = clients();
  const nodes = (await core.listNode()).items.filter(
    (n) =>
      !n.spec?.unschedulable &&
      !n.spec?.taints?.length &&
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  const node = (nodes.find((n) => n.metadata!.name === 'a2-2') ?? nodes[0]!).metadata!.name!;
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await apps.createNamespacedDeployment({ namespace: NS, body: pinnedDeployment(NAME, node) });

  await page.goto('/incident');
  const row = page.getByTestId('incident-spread').filter({ hasText: `${NAME}:` });
  await expect(row).toContainText(`${NAME}: all 2 ready replicas in one node, ${node}`, {
    timeout: budget(60_000),
  });
  await expect(row).toContainText('Safe next action: evict');
  const before = (await live()).map((p) => p.metadata!.uid);

  await row.getByTestId('guarded-open-evictPod').click();
  const dialog = page.getByTestId('guarded-dialog');
  await expect(dialog).toContainText('Evict pod');
  await expect(page.getByTestId('guarded-verdict')).toHaveText('Safe');
  await expect(page.getByTestId('guarded-dry-run')).toContainText(
    /pod e2e-placement\/e2e-spread-\S+ would be evicted/,
  );
  await page.screenshot({ path: resolve(DOCS, 'console-incident-placement.png') });
  await checkA11y(page, 'evict dialog from Placement');
  await page.getByTestId('guarded-submit').click();
  await expect(page.getByTestId('guarded-result')).toContainText(
    /pod e2e-placement\/e2e-spread-\S+ was evicted: it is Terminating/,
    { timeout: budget(30_000) },
  );
  await dialog.getByRole('button', { name: 'Close' }).last().click();
  // its ReplicaSet replaced it (pinned, on the same node: the spread rules are the workload's)
  await expect(async () => {
    const now = (await live()).map((p) => p.metadata!.uid);
    expect(now).toHaveLength(2);
    expect(now.filter((u) => !before.includes(u))).toHaveLength(1);
  }).toPass({ timeout: budget(30_000) });
});
