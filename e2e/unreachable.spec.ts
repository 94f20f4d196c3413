// A cluster Palisade cannot reach never shows a blank page: a banner says which cluster and
// why, while the map waits. The kubeconfig is the e2e cluster's, pointed at a closed port.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_KUBECONFIG, type SecondConsole, startSecondConsole, budget } from './helpers';

let second: SecondConsole | undefined;

test.beforeAll(async () => {
  // starts a process of its own: bounded, with room for a loaded machine (CI runs phases side by side)
  test.setTimeout(budget(120_000));
  const dir = mkdtempSync(join(tmpdir(), 'palisade-unreachable-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // port 9 (discard) is closed on 127.0.0.1: connections are refused at once
  writeFileSync(
    kubeconfig,
    readFileSync(E2E_KUBECONFIG, 'utf8').replace(/https:\/\/127\.0\.0\.1:\d+/, 'https://127.0.0.1:9'),
  );
  second = await startSecondConsole(['--kubeconfig', kubeconfig]);
});

test.afterAll(() => second?.stop());

test('an unreachable cluster gets a banner that says why', async ({ page }) => {
  await page.goto(second!.link);
  const banner = page.getByRole('alert', { name: 'Cluster problem' });
  await expect(banner).toContainText('Cannot read cluster palisade-embedded:');
  await expect(banner).toContainText('API server unreachable at https://127.0.0.1:9: ECONNREFUSED');
  // the map does not pretend the cluster is empty
  await expect(
    page.getByRole('status').filter({ hasText: 'Nodes not loaded: the cluster cannot be read' }),
  ).toBeVisible();
  await expect(page.getByText('This cluster has no nodes.')).toBeHidden();
});
