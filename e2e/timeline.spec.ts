import { expect, test } from '@playwright/test';
import { clusterId, core, runningStorefrontPod, budget } from './helpers';

// Deleting a pod through the Kubernetes API: its detail page shows the deletion, the grace
// countdown, the kubelet's preStop and SIGTERM steps, and then the pod's removal.
test('a deleted pod shows its termination timeline', async ({ page, request }) => {
  test.setTimeout(budget(60_000));
  const api = core();
  const pod = await runningStorefrontPod(api);
  const name = pod.metadata!.name!;
  const cluster = await clusterId(request);

  await page.goto(`/clusters/${encodeURIComponent(cluster)}/namespaces/shop/pods/${name}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`shop/${name}`);
  const header = page.locator('header', { has: page.getByRole('heading', { level: 1 }) });
  await expect(header).toContainText('Ready');
  const timeline = page.getByRole('region', { name: 'Termination timeline' });
  await expect(timeline).toBeHidden();

  await api.deleteNamespacedPod({ namespace: 'shop', name, gracePeriodSeconds: 30 });

  // the deletion, and the grace period counting down
  await expect(timeline).toBeVisible({ timeout: 10_000 });
  await expect(header).toContainText('Terminating');
  await expect(timeline).toContainText('grace period 30s');
  await expect(timeline).toContainText('delete requested');
  await expect(timeline).toContainText('grace ends');
  const countdown = timeline.getByRole('timer');
  await expect(countdown).toHaveText(/^\d+\.\ds left$/);

  // the kubelet's steps (storefront's preStop hook takes 2 s)
  await expect(timeline).toContainText('preStop start', { timeout: 10_000 });
  await expect(timeline).toContainText('SIGTERM', { timeout: 10_000 });
  await expect(timeline).toContainText('preStop done');

  // and then the pod is gone
  await expect(timeline).toContainText('pod removed', { timeout: 20_000 });
  await expect(page.getByText('deleted from the cluster — showing its last known state')).toBeVisible();
  await expect(countdown).toBeHidden();
  await timeline.getByText(/every step \(\d+\)/).click();
  for (const step of ['observed', 'preStop-started', 'preStop-finished', 'SIGTERM', 'removed'])
    await expect(timeline.getByRole('cell', { name: step, exact: true })).toBeVisible();
});
