import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { checkA11y } from './axe';
import {
  clusterId,
  core,
  healAndWait,
  infra,
  holdNode,
  RESERVED,
  releaseHeldNodes,
  runningStorefrontPod,
  tile,
  budget,
} from './helpers';

test.afterEach(releaseHeldNodes);

// Screenshots for the README, taken from the live console: docs/console-map.png and
// docs/console-timeline.png.
const DOCS = resolve(import.meta.dirname, '..', 'docs');
test.use({ viewport: { width: 1440, height: 900 } });
test.describe.configure({ mode: 'serial' });

test.beforeAll(() => mkdirSync(DOCS, { recursive: true }));

test('screenshot: the map with a partitioned node', async ({ page }) => {
  test.setTimeout(budget(60_000));
  const node = RESERVED.screenshots;
  await holdNode(node); // shared with incident.spec.ts
  await page.goto('/');
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`));
  try {
    await infra(node, 'partition');
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 20_000 });
    // not by colour alone: the tile says Unknown in words (issue 18)
    await expect(t.getByTestId('node-state-text')).toHaveText('Unknown');
    await t.click();
    const panel = page.getByRole('complementary', { name: `Node ${node}` });
    await expect(panel.getByText('Unknown', { exact: true }).first()).toBeVisible();
    await expect(panel.getByRole('row', { name: /^Ready Unknown NodeStatusUnknown/ })).toBeVisible();
    // force-delete one of its Deployment pods: the API forgets it, its process runs on (a ghost)
    const api = core();
    const onNode = await api.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` });
    const victim = onNode.items.find((p) => p.metadata?.ownerReferences?.[0]?.kind === 'ReplicaSet');
    if (victim) {
      const { namespace, name } = victim.metadata!;
      await api.deleteNamespacedPod({ namespace: namespace!, name: name!, gracePeriodSeconds: 0 });
      const summary = page.getByTestId('ghost-summary');
      await expect(summary).toContainText('(1 ghost)');
      await summary.locator('summary').click();
      await expect(panel.getByText(`ghost: ${namespace}/${name} on ${node} still runs`)).toBeVisible();
    }
    await expect(page.getByRole('status', { name: 'Informers synced' })).toBeVisible();
    // the map in a state the a11y spec does not reach: an Unknown node, a ghost, its panel
    await checkA11y(page, 'map, partitioned node with a ghost');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: resolve(DOCS, 'console-map.png'), fullPage: true });
  } finally {
    await healAndWait(node);
  }
});

test('screenshot: a pod termination timeline', async ({ page, request }) => {
  test.setTimeout(budget(60_000));
  const api = core();
  const pod = await runningStorefrontPod(api);
  const name = pod.metadata!.name!;
  const cluster = await clusterId(request);
  await page.goto(`/clusters/${encodeURIComponent(cluster)}/namespaces/shop/pods/${name}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`shop/${name}`);

  await api.deleteNamespacedPod({ namespace: 'shop', name, gracePeriodSeconds: 30 });
  const timeline = page.getByRole('region', { name: 'Termination timeline' });
  await expect(timeline).toContainText('pod removed', { timeout: 20_000 });
  await expect(timeline).toContainText('SIGTERM');
  await timeline.getByText(/every step \(\d+\)/).click();
  await expect(timeline.getByRole('cell', { name: 'removed', exact: true })).toBeVisible();
  await expect(page.getByText('refreshing…')).toBeHidden();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: resolve(DOCS, 'console-timeline.png'), fullPage: true });
});
