// A cluster that palisade.yaml marks protected: a red frame around everything, and a
// simulated fault runs only once the node's name is typed; the action is then recorded as a
// Kubernetes Event on the node. A second console (its own process, port and config) is
// started against the e2e embedded cluster, so the main console keeps its normal mode.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { RESERVED, tile } from './helpers';

const ROOT = resolve(import.meta.dirname, '..');
let server: ChildProcess | undefined;
let url = '';

test.beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'palisade-protected-'));
  const config = join(dir, 'palisade.yaml');
  writeFileSync(config, 'clusters:\n  - context: palisade-embedded\n    mode: protected\n');
  const kubeconfig = resolve(ROOT, '.palisade', 'e2e', 'kubeconfig');
  server = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/main.ts', '--port', '0', '--kubeconfig', kubeconfig, '--config', config],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the protected console did not start:\n${out}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/Palisade console: (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    server!.stdout!.on('data', read);
    server!.stderr!.on('data', read);
    server!.on('exit', (code) => fail(new Error(`the protected console exited (${code}):\n${out}`)));
  });
});

test.afterAll(() => {
  server?.kill('SIGTERM');
});

test('a protected cluster is framed, and an action needs the node name typed', async ({ page }) => {
  test.setTimeout(90_000);
  const node = RESERVED.protected;
  await page.goto(url);
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
