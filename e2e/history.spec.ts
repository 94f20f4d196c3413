import { expect, test } from '@playwright/test';
import { clusterId, healAndWait, holdNode, RESERVED, releaseHeldNodes, tile, budget } from './helpers';

test.afterEach(releaseHeldNodes);

// The incident history: a partition simulated from the console appears on the timeline and in
// the Audit page; the timeline's shareable link reproduces the filtered view; replay shows the
// node Ready before the fault and Unknown after. (Survival across a restart of the console is
// covered by server/history/history.int.test.ts: the e2e server cannot restart.)
test('a simulated fault on the timeline, in the audit, in a shared link and in replay', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(budget(120_000));
  const node = RESERVED.history;
  await holdNode(node); // shared with incident.spec.ts
  const cluster = await clusterId(request);
  const before = new Date(Date.now() - 1000).toISOString();

  await page.goto('/');
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`), { timeout: 30_000 });
  await t.click();
  const panel = page.getByRole('complementary', { name: `Node ${node}` });
  let after = '';
  try {
    const sim = panel.getByRole('region', { name: 'Embedded cluster (simulation)' });
    await sim.getByRole('button', { name: `Simulate partition on ${node}` }).click();
    await expect(sim.getByRole('status')).toHaveText('partition: done');
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 30_000 });
    after = new Date().toISOString();
    // the cluster stamps conditions to the second (RFC 3339): heal only once the clock has left
    // `after`'s second, or the Ready that follows could be stamped at or before `after`
    const nextSecond = Math.floor(Date.parse(after) / 1000) * 1000 + 1000;
    await expect.poll(() => Date.now(), { intervals: [100] }).toBeGreaterThan(nextSecond);
  } finally {
    await healAndWait(node);
  }

  // the timeline, filtered to the node, over a window that reaches into the future (it refreshes)
  const to = new Date(Date.now() + 10 * 60_000).toISOString();
  const from = new Date(Date.parse(before) - 60_000).toISOString();
  await page.goto(`/timeline?cluster=${encodeURIComponent(cluster)}&from=${from}&to=${to}&q=${node}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
  const table = page.getByTestId('timeline-table');
  const faultRow = table.locator('tr[data-kind="fault"]', { hasText: 'SimulatedPartition' });
  await expect(faultRow.first()).toBeVisible({ timeout: 30_000 });
  await expect(faultRow.first()).toContainText(`Node ${node}`);
  await expect(table.locator('tr[data-kind="node-condition"]', { hasText: 'Unknown' }).first()).toBeVisible();

  // only simulated faults: the URL (the shareable link) says so, and opening it shows the same rows
  await page.getByRole('checkbox', { name: 'Simulated fault' }).check();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/kinds=fault/);
  await expect(table.locator('tr[data-kind="node-condition"]')).toHaveCount(0);
  await expect(faultRow.first()).toBeVisible();
  const link = await page.getByTestId('timeline-link').getAttribute('href');
  expect(link).toContain(`q=${node}`);
  const rows = await table.locator('tbody tr').allInnerTexts();
  const other = await browser.newPage({ storageState: await page.context().storageState() });
  try {
    await other.goto(link!);
    const shared = other.getByTestId('timeline-table');
    await expect(shared.locator('tr[data-kind="fault"]').first()).toBeVisible();
    await expect.poll(() => shared.locator('tbody tr').allInnerTexts()).toEqual(rows);
    await expect(other.getByRole('checkbox', { name: 'Simulated fault' })).toBeChecked();
  } finally {
    await other.close();
  }

  // replay: Ready before the fault, Unknown after it, said in words
  const replayAt = async (at: string) => {
    await page.getByRole('textbox', { name: 'Replay time' }).fill(at);
    await page.getByRole('region', { name: 'Replay' }).getByRole('button', { name: 'Show' }).click();
  };
  const replayed = page.getByTestId(`replay-node-${node}`);
  await replayAt(before);
  await expect(replayed.getByTestId('replay-state')).toHaveText('Ready');
  await replayAt(after);
  await expect(replayed.getByTestId('replay-state')).toHaveText('Unknown');
  await expect(replayed).toContainText('last fault: partition');

  // the Audit page lists the fault (from the history store)
  await page.goto('/audit');
  await page.getByRole('combobox', { name: 'Action' }).selectOption('simulation');
  const auditRow = page
    .getByTestId('audit-table')
    .locator('tr', { hasText: `Node ${node}` })
    .filter({ hasText: 'partition' });
  await expect(auditRow.first()).toBeVisible();
  await expect(auditRow.first()).toContainText('simulation');
});
