import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { E2E_STATE_DIR, keysReady, budget } from './helpers';

// The Instance IDs page on the demo cluster: the demo's metrics Deployment and queue StatefulSet
// opt in, so their simulated pods take IDs from the console's endpoint as they start. The page
// shows each map live; an entry written by hand for a pod that does not exist, at an ID above
// the replica count, shows at once as a stale entry (kept, and why: nothing confirms its pod
// stopped) and a conflict, and goes when removed.
const ANNOTATION = 'palisade.dev/instance-ids';
/** the README's picture of the page, taken while the hand-written entry is there */
const DOCS = resolve(import.meta.dirname, '..', 'docs');
test.use({ viewport: { width: 1440, height: 900 } });

function apps(): k8s.AppsV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(resolve(E2E_STATE_DIR, 'kubeconfig'));
  return kc.makeApiClient(k8s.AppsV1Api);
}

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

test('the Instance IDs page shows the maps, live, with stale entries and conflicts', async ({ page }) => {
  test.setTimeout(budget(60_000));
  await page.goto('/');
  // reached from the navigation, and by its keys
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Instance IDs' }).click();
  await expect(page).toHaveURL(/\/instance-ids$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Instance IDs' })).toBeVisible();
  await page.goto('/');
  // live node tiles: the page is hydrated and listens for keys
  await expect(page.getByTestId(/^node-tile-/).first()).toBeVisible();
  await keysReady(page);
  await page.keyboard.press('g');
  await page.keyboard.press('d');
  await expect(page).toHaveURL(/\/instance-ids$/);

  const metrics = page.getByRole('region', { name: 'Deployment monitoring/metrics' });
  const ids = metrics.getByRole('list', { name: 'Instance IDs of monitoring/metrics' });
  // every pod of the demo's metrics Deployment took an ID as it started
  for (const id of [0, 1, 2])
    await expect(
      ids.getByRole('listitem', { name: new RegExp(`^ID ${id}: metrics-\\S+ \\(running\\)$`) }),
    ).toBeVisible({
      timeout: 30_000,
    });
  await expect(metrics).toContainText('3 of 3 IDs held');
  await expect(page.getByRole('region', { name: 'StatefulSet shop/queue' })).toContainText('opted in');
  await expect(page.getByText('ground truth of the embedded cluster (simulation only)')).toBeVisible();
  await expect(page.getByText('Live', { exact: true })).toBeVisible();

  // a stale, out-of-range entry written by hand appears without a reload
  const api = apps();
  const before = (await api.readNamespacedDeployment({ namespace: 'monitoring', name: 'metrics' })).metadata
    ?.annotations?.[ANNOTATION];
  expect(before).toBeDefined();
  const withStale = `${before!.slice(0, -1)},"7":"metrics-gone"}`;
  const write = (value: string) =>
    api.patchNamespacedDeployment(
      {
        namespace: 'monitoring',
        name: 'metrics',
        body: { metadata: { annotations: { [ANNOTATION]: value } } },
      },
      merge,
    );
  try {
    await write(withStale);
    await expect(ids.getByRole('listitem', { name: 'ID 7: metrics-gone (gone)' })).toBeVisible();
    await expect(metrics).toContainText('ID 7: metrics-gone — the pod no longer exists');
    // nothing confirms that pod stopped (it never existed): the page says why its entry is kept
    await expect(metrics).toContainText(
      'kept, not known to have stopped: metrics-gone: gone from the API, and where it ran is not known: nothing confirms it stopped',
    );
    await expect(metrics).toContainText('id 7 (metrics-gone) is not below the replica count 3');
    mkdirSync(DOCS, { recursive: true });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: resolve(DOCS, 'console-instance-ids.png') });
    await page.getByRole('button', { name: /^Filter conflicts 1$/ }).click();
    await expect(page.getByRole('region', { name: 'StatefulSet shop/queue' })).toBeHidden();
    await expect(metrics).toBeVisible();
  } finally {
    await write(before!);
  }
  await expect(ids.getByRole('listitem', { name: 'ID 7: metrics-gone (gone)' })).toBeHidden();
  await expect(page.getByRole('button', { name: /^Filter conflicts 0$/ })).toBeVisible();
});
