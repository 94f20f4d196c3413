import { expect, test } from '@playwright/test';

// The demo profile: three zones, two racks each, two nodes per rack.
const DEMO_NODES = ['a1', 'a2', 'b1', 'b2', 'c1', 'c2'].flatMap((rack) => [`${rack}-1`, `${rack}-2`]);

test('the cluster map shows every node of the demo cluster', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('banner')).toContainText('Palisade');
  for (const name of DEMO_NODES) {
    const tile = page.getByTestId(`node-tile-${name}`);
    await expect(tile).toBeVisible();
    await expect(tile).toHaveAccessibleName(new RegExp(`^Node ${name}:`));
  }
  await expect(page.getByRole('region', { name: 'Cluster summary' })).toContainText('12 nodes');
  // pods on no node are named: here Podseidon's update-trigger pod, which is never scheduled
  const unscheduled = page.getByTestId('unscheduled');
  await expect(unscheduled).toContainText(
    /\d+ pods? not scheduled to any node: .*default\/podseidon-update-trigger/,
  );
  await expect(unscheduled.getByRole('link', { name: 'default/podseidon-update-trigger' })).toHaveAttribute(
    'href',
    /podseidon-update-trigger/,
  );

  // clicking a tile opens its side panel
  await page.getByTestId('node-tile-a1-1').click();
  await expect(page.getByRole('complementary', { name: 'Node a1-1' })).toBeVisible();

  // compact density: small squares for thousands of nodes, the same names and states
  await page.getByRole('combobox', { name: 'Map density' }).selectOption('compact');
  const compact = page.getByTestId('node-tile-b2-1');
  await expect(compact).toHaveAccessibleName(/^Node b2-1: Ready; \d+ pods/);
  expect((await compact.boundingBox())!.width).toBeLessThan(20);
  await compact.click();
  await expect(page.getByRole('complementary', { name: 'Node b2-1' })).toBeVisible();
});
