import { expect, test } from '@playwright/test';
import { ageSeconds, healAndWait, RESERVED, tile, budget } from './helpers';

// A partitioned node hosting an orders-db pod: Unknown within the node-monitor grace (8 s),
// heartbeat age counting up, its pods Terminating once the toleration (20 s) runs out.
test('partitioning a node from its panel: Unknown, then its pods Terminating', async ({ page }) => {
  test.setTimeout(budget(120_000));

  // which node hosts an orders-db pod? the pods list shows the NODE column
  await page.goto('/pods');
  await page.getByRole('searchbox', { name: 'Search pods' }).fill('orders-db');
  const table = page.getByRole('table', { name: 'Pods' });
  let node = '';
  let pod = '';
  await expect(async () => {
    const rows = await table
      .getByRole('row')
      .filter({ hasText: /orders-db-\d/ })
      .all();
    const ready: { pod: string; node: string }[] = [];
    for (const r of rows) {
      const cells = (await r.getByRole('cell').allInnerTexts()).map((t) => t.trim());
      // Namespace, Name, State, Grace, Node, ...
      if (cells[2] === 'Ready' && cells[4]) ready.push({ pod: cells[1], node: cells[4] });
    }
    expect(ready.length).toBe(3);
    const pick = ready.find((r) => !Object.values<string>(RESERVED).includes(r.node));
    expect(pick).toBeDefined();
    ({ node, pod } = pick!);
  }).toPass({ timeout: 30_000 });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Map' }).click();
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`));
  await t.click();
  const panel = page.getByRole('complementary', { name: `Node ${node}` });
  await expect(panel).toBeVisible();
  const podItem = panel
    .getByRole('region', { name: 'Pods on this node' })
    .getByRole('listitem')
    .filter({ hasText: `shop/${pod}` });
  await expect(podItem).toContainText('Ready');

  try {
    const sim = panel.getByRole('region', { name: 'Embedded cluster (simulation)' });
    await sim.getByRole('button', { name: `Simulate partition on ${node}` }).click();
    await expect(sim.getByRole('status')).toHaveText('partition: done');

    // within the node-monitor grace period (8 s) plus the monitor's period: Unknown
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 20_000 });
    await expect(t).toHaveAttribute('data-state', 'unknown');
    await expect(panel.getByText('Unknown', { exact: true }).first()).toBeVisible();

    // the ground truth (simulation) shows the pod's process still running out of the API's sight
    const unseen = panel.getByRole('region', { name: "Processes out of the API's sight" });
    await expect(unseen).toContainText(`shop/${pod} on ${node} still runs; the API cannot see it`);
    // and the map's tile carries the overlay's count
    await expect(t).toHaveAccessibleName(/process(es)? out of the API's sight \(unseen, simulation\)$/);

    // the tile shows the heartbeat age, and it counts up
    const age = t.getByTitle(/time since the last heartbeat/);
    await expect(age).toHaveText(/^\d+s$/);
    const first = ageSeconds(await age.textContent());
    // the node went Unknown only after 8 s of silence; the tile's clock ticks once a second, so
    // the first reading may still be one tick behind
    expect(first).toBeGreaterThanOrEqual(7);
    await expect
      .poll(async () => ageSeconds(await age.textContent()), { timeout: 5_000 })
      .toBeGreaterThan(first);

    // once the default toleration (20 s) runs out, the taint manager deletes its pods: a
    // partitioned kubelet never finishes them, so they stay Terminating
    await expect(podItem).toContainText('Terminating', { timeout: 45_000 });
    await expect(t).toHaveAccessibleName(/Terminating/);
  } finally {
    await healAndWait(node);
  }
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`), { timeout: 20_000 });
});
