// The node panel's own actions (issue 25, 5): Cordon, Drain and Uncordon, then the zone's Cordon, each through the
// guarded dialog and the one seam, on a Node of the test's own (no kubelet runs there, kept
// Ready) so no other spec's workloads move. Its one pod has no controller: the drain is judged
// unsafe (kubectl drain wants --force), so the dialog asks for the name and a reason, counts
// down, and evicts through the Eviction API; the Audit page lists the drain with its outcome.
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { budget, core, fakeReadyNode, tile } from './helpers';

const DOCS = resolve(import.meta.dirname, '..', 'docs');
const NODE = 'e2e-drain-1';
const POD = 'e2e-drain-bare';
/** the node's own zone: cordoning the zone touches no other spec's node */
const ZONE = 'e2e-drain-zone';
const REASON = `e2e: drain before maintenance (${Date.now().toString(36)})`;

test('cordon, drain and uncordon a node from its panel, recorded in the audit', async ({ page }) => {
  test.setTimeout(budget(120_000));
  const api = core();
  await api.deleteNode({ name: NODE }).catch(() => undefined);
  const remove = await fakeReadyNode(NODE, [], {
    schedulable: true,
    labels: { 'topology.kubernetes.io/zone': ZONE, 'palisade.dev/rack': 'e2e-drain-r1' },
  });
  try {
    // bound by name: the scheduler never places anything on the fake node
    await api.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: POD },
        spec: {
          nodeName: NODE,
          tolerations: [{ key: 'e2e.palisade.dev/fake', operator: 'Exists' }],
          containers: [{ name: 'app', image: 'app:1' }],
        },
      },
    });

    await page.goto('/');
    await tile(page, NODE).click();
    const panel = page.getByRole('complementary', { name: `Node ${NODE}` });
    const actions = panel.getByTestId('node-actions');
    const dialog = page.getByTestId('guarded-dialog');

    // cordon: safe, no name to type, no countdown
    await actions.getByTestId('guarded-open-cordonNode').click();
    await expect(dialog).toContainText('Cordon node');
    await expect(page.getByTestId('guarded-dry-run')).toContainText(`node ${NODE} would be cordoned`);
    await page.getByTestId('guarded-submit').click();
    await expect(page.getByTestId('guarded-result')).toContainText(`node ${NODE} was cordoned`);
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await expect(panel).toContainText('no (cordoned)');
    await expect(actions.getByTestId('guarded-open-uncordonNode')).toBeVisible();

    // drain: the bare pod makes it unsafe; the name and a reason, then the countdown
    await actions.getByTestId('guarded-open-drainNode').click();
    await expect(dialog).toContainText(`pod default/${POD} has no controller`);
    await expect(page.getByTestId('guarded-dry-run')).toContainText('1 of 1 pod would be evicted');
    const submit = page.getByTestId('guarded-submit');
    await expect(submit).toBeDisabled();
    await page.getByTestId('guarded-confirm-input').fill(NODE);
    await page.getByTestId('guarded-reason-input').fill(REASON);
    await expect(submit).toBeEnabled();
    await page.screenshot({ path: resolve(DOCS, 'console-node-drain.png') });
    await submit.click();
    await expect(page.getByTestId('guarded-countdown')).toContainText(/Sending in [1-5] s/);
    await expect(page.getByTestId('guarded-result')).toContainText(
      `node ${NODE} was already cordoned; 1 of 1 pod evicted`,
      { timeout: budget(20_000) },
    );
    await expect(async () => {
      const p = await api.readNamespacedPod({ namespace: 'default', name: POD }).catch(() => undefined);
      expect(!p || !!p.metadata?.deletionTimestamp).toBe(true);
    }).toPass({ timeout: budget(15_000) });
    await dialog.getByRole('button', { name: 'Close' }).last().click();

    // uncordon
    await actions.getByTestId('guarded-open-uncordonNode').click();
    await page.getByTestId('guarded-submit').click();
    await expect(page.getByTestId('guarded-result')).toContainText(`node ${NODE} was uncordoned`);
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await expect(panel).not.toContainText('no (cordoned)');

    // the zone, from its header on the map: one cordonNode per node, one reason for all
    await panel.getByRole('button', { name: 'Close node panel' }).click();
    await page.getByTestId(`cordon-group-zone-${ZONE}`).click();
    const bulk = page.getByTestId('cordon-group-dialog');
    await expect(bulk).toContainText(`Cordon zone ${ZONE}: 1 node`);
    await bulk.getByTestId('cordon-group-submit').click();
    await expect(bulk.getByTestId(`cordon-group-item-${NODE}`)).toContainText(
      `done: node ${NODE} was cordoned`,
    );
    await bulk.getByRole('button', { name: 'Close' }).last().click();
    // all cordoned: the same button uncordons the zone
    await expect(page.getByTestId(`cordon-group-zone-${ZONE}`)).toHaveText('Uncordon…');
    await page.getByTestId(`cordon-group-zone-${ZONE}`).click();
    await bulk.getByTestId('cordon-group-submit').click();
    await expect(bulk.getByTestId(`cordon-group-item-${NODE}`)).toContainText(
      `done: node ${NODE} was uncordoned`,
    );
    await bulk.getByRole('button', { name: 'Close' }).last().click();
    await expect(page.getByTestId(`cordon-group-zone-${ZONE}`)).toHaveText('Cordon…');

    await page.goto('/audit');
    const row = page.getByTestId('audit-table').locator('tr', { hasText: REASON });
    await expect(row).toBeVisible();
    await expect(row).toContainText('Drain node');
    await expect(row).toContainText('1 of 1 pod evicted');
    await expect(row).toContainText('overridden');
  } finally {
    await api
      .deleteNamespacedPod({ namespace: 'default', name: POD, gracePeriodSeconds: 0 })
      .catch(() => undefined);
    await remove();
  }
});
