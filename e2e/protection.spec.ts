// Deletion protection pages: the demo scenario's generator turns shop/checkout (4 replicas)
// and shop/orders-db into PodProtectors; the list shows them, the detail page its cells and
// admission history, and the dry-run preview admits deleting one checkout pod (4 available,
// 3 required). Read-only: the preview is a server-side dry run.
import type * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { core } from './helpers';

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
  test.setTimeout(60_000);
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
