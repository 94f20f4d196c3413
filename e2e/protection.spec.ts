// Deletion protection pages: the demo scenario's generator turns shop/checkout (4 replicas)
// and shop/orders-db into PodProtectors; the list shows them, the detail page its cells and
// admission history, and the dry-run preview admits deleting one checkout pod (4 available,
// 3 required). Read-only: the preview is a server-side dry run.
import type * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { core, budget } from './helpers';

async function readyCheckoutPod(api: k8s.CoreV1Api): Promise<k8s.V1Pod> {
  let pod: k8s.V1Pod | undefined;
  await expect(async () => {
    const pods = await api.listNamespacedPod({ namespace: 'shop', labelSelector: 'app=checkout' });
    pod = pods.items.find(
      (p) =>
        !p.metadata?.deletionTimestamp &&
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    expect(pod).toBeDefined();
  }).toPass({ timeout: 30_000 });
  return pod!;
}

test('the protectors list shows the generated protectors', async ({ page }) => {
  await page.goto('/protectors');
  const table = page.getByRole('table', { name: 'Protectors' });
  const row = table.getByRole('row').filter({ hasText: 'shop/deployment-checkout' });
  await expect(row).toBeVisible({ timeout: 30_000 });
  // columns: name, required, aggregated, estimated, lag, state, source, cells
  await expect(row.getByRole('cell').nth(1)).toHaveText('3');
  await expect(row.getByRole('cell').nth(6)).toHaveText('Deployment/checkout');
  await expect(table.getByRole('row').filter({ hasText: 'shop/statefulset-orders-db' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Protection set-up' })).toContainText('Webhook: https://');
  await page.screenshot({ path: test.info().outputPath('protectors.png') });
});

test('a protector page shows cells, history, and a dry-run preview that admits', async ({ page }) => {
  test.setTimeout(budget(60_000));
  const pod = await readyCheckoutPod(core());
  await page.goto('/protectors');
  await page.getByRole('link', { name: 'shop/deployment-checkout' }).click();
  await expect(page).toHaveURL(/\/protectors\/shop\/deployment-checkout$/);
  await expect(page.getByRole('heading', { name: 'shop/deployment-checkout' })).toBeVisible();

  const cells = page.getByRole('table', { name: 'Cells' });
  await expect(cells.getByRole('row')).toHaveCount(2); // header + the embedded cluster's cell
  const history = page.getByRole('region', { name: 'Admission history' });
  await expect(history.getByRole('application')).toBeVisible(); // the recharts surface

  const preview = page.getByRole('form', { name: 'Deletion preview' });
  await preview.getByRole('combobox', { name: 'Pod (namespace/name)' }).fill(`shop/${pod.metadata!.name}`);
  await preview.getByRole('button', { name: 'Would this deletion be admitted?' }).click();
  await expect(preview.getByRole('status', { name: 'Preview result' })).toContainText('Admitted');
  await expect(preview).toContainText('dry run');
  await page.screenshot({ path: test.info().outputPath('protector.png'), fullPage: true });
});

test('the map counts the protectors and marks the nodes that run protected pods', async ({ page }) => {
  const pod = await readyCheckoutPod(core());
  await page.goto('/');
  await expect(page.getByTestId('summary-protectors')).toContainText('2 protectors', { timeout: 30_000 });
  await expect(page.getByTestId('summary-protectors')).toContainText('at or below floor');
  // the checkout pod's node tile counts it among its protected pods and says so to screen readers
  const tile = page.getByTestId(`node-tile-${pod.spec!.nodeName}`);
  await expect(tile.getByTestId('node-protected')).toBeVisible();
  await expect(tile).toHaveAttribute('aria-label', /protected pods? \(.*shop\/deployment-checkout/);
  await tile.click();
  const panel = page.getByRole('complementary', { name: `Node ${pod.spec!.nodeName}` });
  await expect(panel.getByRole('link', { name: 'deployment-checkout' }).first()).toBeVisible();
});

test('the pods list filters to protected pods and the pod page previews its deletion', async ({ page }) => {
  test.setTimeout(budget(60_000));
  const pod = await readyCheckoutPod(core());
  await page.goto('/pods');
  await page.getByRole('checkbox', { name: 'protected only' }).check();
  const table = page.getByRole('table', { name: 'Pods' });
  const row = table.getByRole('row').filter({ hasText: pod.metadata!.name! });
  await expect(row.getByRole('link', { name: 'deployment-checkout' })).toBeVisible({ timeout: 30_000 });
  await expect(table.getByRole('row').filter({ hasText: 'storefront-' })).toHaveCount(0);

  await row.getByRole('link', { name: pod.metadata!.name! }).click();
  const card = page.getByRole('region', { name: 'Deletion protection' });
  await expect(card.getByRole('link', { name: 'shop/deployment-checkout' })).toBeVisible();
  await card.getByRole('button', { name: 'Would deleting this pod be admitted?' }).click();
  await expect(card.getByRole('status', { name: 'Preview result' })).toContainText('Admitted');
  // a dry run: the pod is still there
  await core().readNamespacedPod({ namespace: 'shop', name: pod.metadata!.name! });
});
