// A cluster that palisade.yaml marks protected: a red frame around everything, and a
// simulated fault runs only once the node's name is typed; the action is then recorded as a
// Kubernetes Event on the node. A second console (its own process, port and config) is
// started against the e2e embedded cluster, so the main console keeps its normal mode.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_KUBECONFIG, RESERVED, type SecondConsole, startSecondConsole, tile, budget } from './helpers';

let second: SecondConsole | undefined;

test.beforeAll(async () => {
  // starts a process of its own: bounded, with room for a loaded machine (CI runs phases side by side)
  test.setTimeout(budget(120_000));
  const dir = mkdtempSync(join(tmpdir(), 'palisade-protected-'));
  const config = join(dir, 'palisade.yaml');
  writeFileSync(config, 'clusters:\n  - context: palisade-embedded\n    mode: protected\n');
  second = await startSecondConsole(['--kubeconfig', E2E_KUBECONFIG, '--config', config]);
});

test.afterAll(() => second?.stop());

test('a protected cluster is framed, and an action needs the node name typed', async ({ page }) => {
  test.setTimeout(budget(90_000));
  const node = RESERVED.protected;
  await page.goto(second!.link);
  await expect(page.getByRole('main', { name: 'Cluster in protected mode' })).toBeVisible();

  await tile(page, node).click();
  const panel = page.getByRole('complementary', { name: `Node ${node}` });
  const sim = panel.getByRole('region', { name: 'Embedded cluster (simulation)' });
  await expect(sim).toContainText("type the node's name to confirm each action");

  await sim.getByRole('button', { name: `Simulate heal on ${node}` }).click();
  const form = sim.getByRole('form', { name: `Confirm heal on ${node}` });
  const go = form.getByRole('button', { name: 'heal' });
  await expect(go).toBeDisabled();
  await form.getByRole('textbox').fill(node.slice(0, -1));
  await expect(go).toBeDisabled();
  await form.getByRole('textbox').fill(node);
  await go.click();
  await expect(sim.getByRole('status')).toHaveText('heal: done');

  const events = panel.getByRole('region', { name: 'Node events' });
  await expect(events).toContainText('SimulatedHeal');
  await expect(events).toContainText('in protected mode');
});
