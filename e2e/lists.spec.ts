// The live lists keep their links while data streams in. The Pods list makes its columns again
// whenever the nodes change, which on a live cluster is several times a second (every Lease
// renewal moves a node's last heartbeat). A CI run once clicked a pod's link and stayed on the
// list: the link had been replaced between the press and the release, so no click happened. A
// person's click (a press held ~100 ms) met that far more often. Here the press is held across
// node updates, then released: the pod's page must open.
import { expect, test } from '@playwright/test';
import { budget } from './helpers';

test('a pod link pressed while node updates stream in still opens the pod', async ({ page }) => {
  test.setTimeout(budget(60_000));
  let nodeDeltas = 0;
  page.on('websocket', (ws) =>
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload === 'string' && /^42\["delta",\{[^{]*"kind":"nodes"/.test(payload)) nodeDeltas++;
    }),
  );
  await page.goto('/pods');
  const link = page
    .getByRole('table', { name: 'Pods' })
    .getByRole('link', { name: /^storefront-/ })
    .first();
  await expect(link).toBeVisible({ timeout: 30_000 });
  const href = await link.getAttribute('href');
  const probe = await link.elementHandle();

  await link.hover();
  await page.mouse.down();
  // hold the press until two node updates have reached the page (and been rendered: the second
  // is handled after the first's render)
  const before = nodeDeltas;
  await expect.poll(() => nodeDeltas - before, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  // the element pressed is still the one in the page: nothing replaced it under the pointer
  expect(await probe!.evaluate((el) => el.isConnected)).toBe(true);
  await page.mouse.up();

  await expect(page).toHaveURL(href!, { timeout: 15_000 });
  await expect(page.getByRole('heading', { level: 1 })).toContainText('storefront-');
});
