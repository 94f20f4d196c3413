import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { checkA11y } from './axe';
import {
  clusterId,
  core,
  healAndWait,
  infra,
  holdNode,
  RESERVED,
  releaseHeldNodes,
  runningStorefrontPod,
  tile,
  budget,
} from './helpers';

test.afterEach(releaseHeldNodes);

// Screenshots for the README, taken from the live console: docs/console-map.png and
// docs/console-timeline.png.
const DOCS = resolve(import.meta.dirname, '..', 'docs');
test.use({ viewport: { width: 1440, height: 900 } });
test.describe.configure({ mode: 'serial' });

test.beforeAll(() => mkdirSync(DOCS, { recursive: true }));

test('screenshot: the map with a partitioned node', async ({ page }) => {
  test.setTimeout(budget(60_000));
  const node = RESERVED.screenshots;
  await holdNode(node); // shared with incident.spec.ts
  const api = core();
  // a pod of this spec's own on the node, deleted with 1 s of grace once the node is cut off: it
  // stays Terminating past its grace (the kubelet cannot confirm), so the map's "terminating past
  // grace" badge, the pod's "overrun" timer and the force-delete dialog over it are checked by
  // axe in both themes (issue 25, finding 10: serious contrast failures in the dark theme)
  const overrun = await runPodOn(api, node);
  await page.goto('/');
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`));
  try {
    await infra(node, 'partition');
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 20_000 });
    // not by colour alone: the tile says Unknown in words (issue 18)
    await expect(t.getByTestId('node-state-text')).toHaveText('Unknown');
    await t.click();
    const panel = page.getByRole('complementary', { name: `Node ${node}` });
    await expect(panel.getByText('Unknown', { exact: true }).first()).toBeVisible();
    await expect(panel.getByRole('row', { name: /^Ready Unknown NodeStatusUnknown/ })).toBeVisible();
    // force-delete one of its Deployment pods: the API forgets it, its process runs on (a ghost)
    const onNode = await api.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` });
    const victim = onNode.items.find((p) => p.metadata?.ownerReferences?.[0]?.kind === 'ReplicaSet');
    if (victim) {
      const { namespace, name } = victim.metadata!;
      await api.deleteNamespacedPod({ namespace: namespace!, name: name!, gracePeriodSeconds: 0 });
      const summary = page.getByTestId('ghost-summary');
      await expect(summary).toContainText('(1 ghost)');
      await summary.locator('summary').click();
      await expect(panel.getByText(`ghost: ${namespace}/${name} on ${node} still runs`)).toBeVisible();
    }
    await api.deleteNamespacedPod({ namespace: 'default', name: overrun, gracePeriodSeconds: 1 });
    await expect(page.getByTitle('Pods still Terminating after their grace period ended')).toHaveText(
      /^[1-9]\d* terminating past grace$/,
      { timeout: 30_000 },
    );
    await expect(page.getByRole('status', { name: 'Informers synced' })).toBeVisible();
    // the map in a state the a11y spec does not reach: an Unknown node, a ghost, its panel, a
    // pod past its grace
    await checkA11y(page, 'map, partitioned node with a ghost and a pod past grace');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: resolve(DOCS, 'console-map.png'), fullPage: true });

    const cluster = await clusterId(page.request);
    await page.goto(`/clusters/${encodeURIComponent(cluster)}/namespaces/default/pods/${overrun}`);
    const timeline = page.getByRole('region', { name: 'Termination timeline' });
    await expect(timeline.getByRole('timer')).toHaveText(/^overrun \d+\.\ds$/, { timeout: 30_000 });
    await checkA11y(page, 'pod detail, terminating past grace on an unreachable node');
    await page.getByTestId('guarded-open-forceDeletePod').first().click();
    const dialog = page.getByTestId('guarded-dialog');
    await expect(dialog.getByTestId('guarded-verdict')).toBeVisible({ timeout: 30_000 });
    await checkA11y(page, 'force-delete dialog over a pod past grace');
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(dialog).toBeHidden();
  } finally {
    await healAndWait(node);
    await api
      .deleteNamespacedPod({ namespace: 'default', name: overrun, gracePeriodSeconds: 0 })
      .catch(() => undefined);
  }
});

/** A bare pod bound to `node`, Running: the one this spec lets overrun its grace. */
async function runPodOn(api: ReturnType<typeof core>, node: string): Promise<string> {
  const name = `e2e-overrun-${Date.now().toString(36)}`;
  await api.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name, labels: { 'e2e.palisade.dev/overrun': 'true' } },
      spec: {
        nodeName: node,
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
      },
    },
  });
  await expect
    .poll(async () => (await api.readNamespacedPod({ namespace: 'default', name })).status?.phase, {
      timeout: 30_000,
    })
    .toBe('Running');
  return name;
}

test('screenshot: a pod termination timeline', async ({ page, request }) => {
  test.setTimeout(budget(60_000));
  const api = core();
  const pod = await runningStorefrontPod(api);
  const name = pod.metadata!.name!;
  const cluster = await clusterId(request);
  await page.goto(`/clusters/${encodeURIComponent(cluster)}/namespaces/shop/pods/${name}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`shop/${name}`);

  await api.deleteNamespacedPod({ namespace: 'shop', name, gracePeriodSeconds: 30 });
  const timeline = page.getByRole('region', { name: 'Termination timeline' });
  await expect(timeline).toContainText('pod removed', { timeout: 20_000 });
  await expect(timeline).toContainText('SIGTERM');
  await timeline.getByText(/every step \(\d+\)/).click();
  await expect(timeline.getByRole('cell', { name: 'removed', exact: true })).toBeVisible();
  await expect(page.getByText('refreshing…')).toBeHidden();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: resolve(DOCS, 'console-timeline.png'), fullPage: true });
});
