import { expect, test } from '@playwright/test';
import { core, healAndWait, infra, RESERVED, tile } from './helpers';
import { checkA11y } from './axe';

/**
 * A Ready node no other spec breaks, running pods but no StatefulSet pod (the fencing and
 * partition specs pick orders-db nodes) and no instance-ID pod (metrics: after a partition its
 * pods wait for their instance ID, so the cluster would not be calm again soon): its pods.
 */
async function quietNode(): Promise<{ node: string; pods: string[] }> {
  const api = core();
  let found: { node: string; pods: string[] } | undefined;
  await expect(async () => {
    const nodes = await api.listNode();
    const pods = await api.listPodForAllNamespaces();
    const ready = nodes.items
      .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((n) => n.metadata!.name!)
      .filter((n) => !Object.values<string>(RESERVED).includes(n))
      .sort()
      .reverse(); // zone c first: no StatefulSets run there
    for (const node of ready) {
      const on = pods.items.filter((p) => p.spec?.nodeName === node && !p.metadata?.deletionTimestamp);
      if (on.some((p) => p.metadata?.ownerReferences?.some((o) => o.kind === 'StatefulSet'))) continue;
      if (on.some((p) => p.metadata?.namespace === 'monitoring')) continue;
      const running = on
        .filter((p) => p.status?.phase === 'Running')
        .map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`);
      if (running.length > 0) {
        found = { node, pods: running };
        return;
      }
    }
    throw new Error('no quiet node with running pods yet');
  }).toPass({ timeout: 30_000 });
  return found!;
}

// The incident view through an incident: a partitioned node is counted, its pods are at risk with
// their safe next action (no FencePolicy covers the node in e2e, so: fence it first) and the force
// delete dialog says why not yet; the node has its remediation row; healed, all is calm again.
test('the incident view follows a partitioned node, then says nothing is broken', async ({ page }) => {
  test.setTimeout(180_000);
  const { node, pods } = await quietNode();

  await page.goto('/');
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`), { timeout: 30_000 });
  try {
    await infra(node, 'partition');
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 30_000 });

    await page.getByRole('link', { name: 'Open incident view' }).click();
    await expect(page).toHaveURL(/\/incident$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Incident' })).toBeVisible();

    const situation = page.getByTestId('incident-situation');
    await expect(situation.getByTestId('incident-count-nodesNotReady')).toContainText(
      /^[1-9]\d* nodes not Ready/,
    );
    await expect(situation.getByTestId('incident-count-podsOnFailedNodes')).toContainText(
      /^[1-9]\d* pods on them/,
    );
    await expect(situation.getByTestId('incident-count-nodesNotReady')).toContainText(
      /5 min: (no sample yet|[+−]?\d+|no change)/,
    );
    await expect(page.getByTestId('incident-freshness')).toContainText(/^data \d+s old/);
    await expect(page.getByTestId('incident-stale')).toHaveCount(0);

    const remediation = page.getByTestId(`incident-remediation-${node}`);
    await expect(remediation).toBeVisible({ timeout: 20_000 });
    await expect(remediation).toContainText('Unknown');
    await expect(remediation.getByTestId('incident-next-step')).toHaveText(
      `no FencePolicy covers ${node}: power it off or cut its storage, confirm, then mark it out of service`,
    );
    await expect(remediation.getByRole('link', { name: node })).toHaveAttribute('href', `/?node=${node}`);

    // one of its pods at risk, with the safe next action and what has to hold first
    const atRisk = page.getByTestId('incident-at-risk');
    const row = atRisk
      .getByTestId(new RegExp(`^incident-risk-pod/(${pods.map((p) => p.replace('/', '\\/')).join('|')})$`))
      .first();
    await expect(row).toBeVisible({ timeout: 20_000 });
    await expect(row.getByTestId('incident-next-action')).toHaveText(
      `fence ${node} first: no FencePolicy covers it (power it off, confirm, then mark it out of service)`,
    );
    const pre = row.getByRole('list', { name: 'Preconditions' });
    await expect(pre).toContainText('a FencePolicy covers the node: not yet');
    await expect(pre).toContainText('the node is fenced (powered off or cut from its storage): not yet');
    await checkA11y(page, 'incident view during an incident');

    // the guarded dialog, the existing one, explains why a force delete is not safe yet
    await row.getByRole('button', { name: 'Force delete…' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(`node ${node} is not fenced`);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    // the taint manager evicts the node's pods once their toleration (20 s) runs out: the row
    // follows live (and the cluster replaces them elsewhere, so it can be calm after the heal)
    await expect(row).toContainText('(Terminating)', { timeout: 45_000 });
  } finally {
    await healAndWait(node);
  }
  await expect(page.getByTestId(`incident-remediation-${node}`)).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('incident-calm')).toContainText('Nothing is broken', { timeout: 90_000 });
  await expect(page.getByTestId('incident-at-risk')).toContainText('Nothing is at risk.');
  await checkA11y(page, 'incident view during an incident');

  // the remediation rows' links open the node on the map
  await page.goto(`/?node=${node}`);
  await expect(page.getByRole('complementary', { name: `Node ${node}` })).toBeVisible();
});
