import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { checkA11y } from './axe';
import { budget, createFencePolicy, E2E_KUBECONFIG, fakeDownNode, tile } from './helpers';

// Issue 25, "Reach": every announced fence can be cancelled from where the commander is looking —
// its tile on the map, the node panel, the incident view's first screen, and the sticky bar on
// every page (one fence, or all of them) — and the policy paused and resumed from the bar, the
// paused state saying so on every page. Each place gets a node of its own: a Node object with no
// kubelet, Ready=Unknown from its first status, which this spec's FencePolicy (covering only these
// nodes) announces at once. Each cancel is timed from the moment the place shows the fence to the
// dialog's "Done", and must land inside the warning window: the fence never runs an agent.
const DOCS = resolve(import.meta.dirname, '..', 'docs');
const POLICY = 'e2e-reach';
const LABEL = 'e2e.palisade.dev/reach';
// long enough that the fences never run during the spec, whatever the load: paused, their window
// keeps running, and resumed past it they would run at once (x17: eight axe runs at load 15 took
// longer than a 90 s window)
const WINDOW_S = 600;
const NODES = {
  tile: 'e2e-reach-tile',
  panel: 'e2e-reach-panel',
  incident: 'e2e-reach-incident',
  bar: 'e2e-reach-bar',
  all1: 'e2e-reach-all-1',
  all2: 'e2e-reach-all-2',
} as const;
const ref = { group: 'palisade.dev', version: 'v1alpha1' };
const COUNTDOWN = /fenced automatically in \d+ s unless cancelled/;

function clients() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return { core: kc.makeApiClient(k8s.CoreV1Api), custom: kc.makeApiClient(k8s.CustomObjectsApi) };
}

/** A Node no kubelet runs, unhealthy from the start (Ready=Unknown): the policy announces its fence. */
const downNode = (name: string) => fakeDownNode(name, { [LABEL]: 'true' });

async function cleanUp() {
  const { core, custom } = clients();
  await custom
    .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: POLICY })
    .catch(() => undefined);
  for (const n of Object.values(NODES)) {
    await custom.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: n }).catch(() => undefined);
    await core.deleteNode({ name: n }).catch(() => undefined);
  }
}

/** The NodeFence a cancel wrote: cancelled by the admin, before any agent ran. */
async function expectCancelled(node: string) {
  const { custom } = clients();
  await expect(async () => {
    const f = (await custom.getClusterCustomObject({ ...ref, plural: 'nodefences', name: node })) as {
      spec: { cancelRequested?: { by: string; reason: string } };
      status?: { phase?: string; attempts?: unknown[] };
    };
    expect(f.spec.cancelRequested?.by).toMatch(/admin/);
    expect(f.status?.phase).toBe('Cancelled');
    expect(f.status?.attempts ?? []).toHaveLength(0);
  }).toPass({ timeout: 30_000 });
}

/** Cancel in the guarded dialog with a picked reason; the seconds from `shownAt` to Done. */
async function cancelInDialog(page: Page, open: Locator, shownAt: number): Promise<number> {
  await open.click();
  const dialog = page.getByTestId('guarded-dialog');
  await expect(dialog.getByTestId('guarded-time-left')).toContainText(/runs in \d+ s unless cancelled/);
  await dialog.getByTestId('reason-choices').getByRole('button').first().click();
  await dialog.getByTestId('guarded-submit').click();
  await expect(dialog.getByTestId('guarded-result')).toContainText('Done:', { timeout: 20_000 });
  const took = (Date.now() - shownAt) / 1000;
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  return took;
}

const took: Record<string, number> = {};

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  await cleanUp();
  await createFencePolicy(POLICY, {
    selects: { [LABEL]: 'true' },
    maxUnhealthy: Object.keys(NODES).length,
    warningWindow: `${WINDOW_S}s`,
  });
});
test.afterAll(async () => {
  console.log(
    `cancel after the announcement: ${Object.entries(took)
      .map(([k, s]) => `${k} ${s.toFixed(1)} s`)
      .join(', ')} (window ${WINDOW_S} s)`,
  );
  await cleanUp();
});

test('from the node’s tile on the map', async ({ page }) => {
  test.setTimeout(budget(90_000));
  await page.goto('/');
  await downNode(NODES.tile);
  const t = tile(page, NODES.tile);
  await expect(t.getByTestId('node-fence')).toHaveText(COUNTDOWN, { timeout: 45_000 });
  const shown = Date.now();
  took.tile = await cancelInDialog(
    page,
    t.getByRole('button', { name: `Cancel the fence on ${NODES.tile}` }),
    shown,
  );
  await expectCancelled(NODES.tile);
  // cancelled while the node is still down: the tile says who holds it, no Cancel any more
  await expect(t.getByTestId('node-fence')).toHaveText(/^fence cancelled by \S*admin/);
  await expect(t.getByRole('button', { name: `Cancel the fence on ${NODES.tile}` })).toHaveCount(0);
  expect(took.tile).toBeLessThan(WINDOW_S);
});

test('from the node panel', async ({ page }) => {
  test.setTimeout(budget(90_000));
  await page.goto('/');
  await downNode(NODES.panel);
  await tile(page, NODES.panel)
    .getByRole('button', { name: new RegExp(`^${NODES.panel}`) })
    .click();
  const panel = page.getByRole('complementary', { name: `Node ${NODES.panel}` });
  await expect(panel.getByTestId('node-panel-fence-warning')).toHaveText(COUNTDOWN, { timeout: 45_000 });
  const shown = Date.now();
  took.panel = await cancelInDialog(page, panel.getByTestId('guarded-open-cancelFence'), shown);
  await expectCancelled(NODES.panel);
  expect(took.panel).toBeLessThan(WINDOW_S);
});

test('from the incident view’s first screen', async ({ page }) => {
  test.setTimeout(budget(90_000));
  await page.goto('/incident');
  await downNode(NODES.incident);
  const row = page.getByTestId(`announced-${NODES.incident}`);
  await expect(row).toContainText(/in \d+ s/, { timeout: 45_000 });
  // above the situation and the at-risk list: on the first screen
  const box = await row.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.y + box!.height).toBeLessThan(page.viewportSize()!.height);
  const shown = Date.now();
  took.incident = await cancelInDialog(page, row.getByTestId('guarded-open-cancelFence'), shown);
  await expectCancelled(NODES.incident);
  expect(took.incident).toBeLessThan(WINDOW_S);
});

test('from the sticky bar on any page', async ({ page }) => {
  test.setTimeout(budget(90_000));
  await page.goto('/pods');
  await downNode(NODES.bar);
  const bar = page.getByRole('region', { name: 'Announced fences' });
  await expect(bar.getByTestId('fence-bar-text')).toHaveText(/^1 fence in \d+ s$/, { timeout: 45_000 });
  const shown = Date.now();
  took.bar = await cancelInDialog(
    page,
    bar.getByRole('button', { name: `Cancel fence on ${NODES.bar}…` }),
    shown,
  );
  await expectCancelled(NODES.bar);
  await expect(bar).toHaveCount(0);
  expect(took.bar).toBeLessThan(WINDOW_S);
});

test('the bar pauses the policy, says so on every page, resumes it, and cancels all', async ({ page }) => {
  // eight axe runs (four views, two themes) take a minute or more at load 15 on two cores
  test.setTimeout(budget(360_000));
  await page.goto('/nodes');
  await downNode(NODES.all1);
  await downNode(NODES.all2);
  const bar = page.getByRole('region', { name: 'Announced fences' });
  await expect(bar.getByTestId('fence-bar-text')).toHaveText(
    /^2 fences in \d+ s \(next: e2e-reach-all-\d\)$/,
    {
      timeout: 45_000,
    },
  );

  // the docs' pictures: the bar and the tiles' Cancel on the map, the incident view's first screen
  await page.goto('/');
  await expect(tile(page, NODES.all1).getByRole('button', { name: /Cancel the fence/ })).toBeVisible();
  await page.screenshot({ path: resolve(DOCS, 'console-fence-bar.png') });
  await page.goto('/incident');
  await expect(page.getByTestId('incident-announced')).toBeVisible();
  await page.screenshot({ path: resolve(DOCS, 'console-incident-announced.png') });
  await page.goto('/nodes');
  await expect(bar.getByTestId('fence-bar-text')).toHaveText(/^2 fences in \d+ s/);

  // Pause from the bar: every page says fencing is paused, by whom, and offers Resume
  await bar.getByTestId('guarded-open-pauseFencePolicy').click();
  const dialog = page.getByTestId('guarded-dialog');
  await expect(dialog.getByTestId('guarded-time-left')).toContainText('2 fences (next: e2e-reach-all-');
  await dialog.getByTestId('reason-choices').getByRole('button').first().click();
  await dialog.getByTestId('guarded-submit').click();
  await expect(dialog.getByTestId('guarded-result')).toContainText('Done:', { timeout: 20_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  for (const path of ['/nodes', '/', '/incident', '/fencing']) {
    if (path !== '/nodes') await page.goto(path);
    await expect(bar.getByTestId('fence-bar-text')).toHaveText('2 fences held: policy e2e-reach is paused');
    await expect(bar.getByTestId(`fence-bar-paused-${POLICY}`)).toContainText(
      new RegExp(`Fencing paused:\\s*policy ${POLICY} by \\S*admin\\S* at \\d\\d:\\d\\d:\\d\\d`),
    );
  }
  // axe in both themes on what only an incident shows: the bar, fence labels on the tiles, the
  // node panel's fence section, the headline and the announced list (issue 25, finding 10)
  await page.goto('/');
  await expect(tile(page, NODES.all1).getByTestId('node-fence')).toBeVisible();
  await checkA11y(page, 'map, two fences held by a paused policy');
  await tile(page, NODES.all1)
    .getByRole('button', { name: new RegExp(`^${NODES.all1}`) })
    .click();
  await expect(page.getByTestId('node-panel-fence')).toBeVisible();
  await checkA11y(page, 'node panel, a fence held');
  await page.goto('/incident');
  await expect(page.getByTestId('incident-announced')).toBeVisible();
  await checkA11y(page, 'incident view, fences announced');
  await page.goto('/nodes');

  // Resume (counted down like any destructive action): the countdown goes on
  await bar.getByTestId('guarded-open-resumeFencePolicy').click();
  await dialog.getByTestId('guarded-submit').click();
  await expect(dialog.getByTestId('guarded-result')).toContainText('Done:', { timeout: 30_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(bar.getByTestId('fence-bar-text')).toHaveText(/^2 fences in \d+ s/);
  await expect(bar.getByTestId(`fence-bar-paused-${POLICY}`)).toHaveCount(0);

  // Cancel all: each one through the seam, each line saying what happened (axe on the dialog
  // first, then timed from a fresh opening)
  const all = page.getByRole('dialog', { name: 'Cancel all 2 announced fences' });
  await bar.getByTestId('fence-bar-cancel-all').click();
  await expect(all.getByTestId(`cancel-all-item-${NODES.all1}`)).toContainText(/runs in \d+ s/);
  await checkA11y(page, 'cancel-all dialog');
  await all.getByRole('button', { name: 'Keep them' }).click();
  await expect(all).toHaveCount(0);
  const shown = Date.now();
  await bar.getByTestId('fence-bar-cancel-all').click();
  await all.getByRole('button', { name: 'a network or control-plane partition, not a node failure' }).click();
  await all.getByTestId('cancel-all-submit').click();
  for (const n of [NODES.all1, NODES.all2])
    await expect(all.getByTestId(`cancel-all-item-${n}`)).toContainText('cancelled:', { timeout: 30_000 });
  took.all = (Date.now() - shown) / 1000;
  await all.getByRole('button', { name: 'Close' }).click();
  await expectCancelled(NODES.all1);
  await expectCancelled(NODES.all2);
  await expect(bar).toHaveCount(0);
  expect(took.all).toBeLessThan(WINDOW_S);
});
