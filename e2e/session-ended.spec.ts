import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort } from '../sim/real/ports.js';
import { E2E_KUBECONFIG, E2E_STATE_DIR, type SecondConsole, startSecondConsole, budget } from './helpers';

// Issue 25, finding 5: after a console restart the open page's socket was refused every 5 s and
// it said "Reconnecting…" for ever, its data looking fresh. A refused WebSocket upgrade says only
// "websocket error", so the page now asks whether the console still knows its session, and when
// not, goes to the sign-in page saying the session ended. A console of its own on a fixed port
// (the session cookie is named after it), restarted with its sessions in memory.
let second: SecondConsole | undefined;
test.afterEach(() => second?.stop());

test('a console restarted without the session: the open page says the session ended', async ({ browser }) => {
  test.setTimeout(budget(180_000));
  const port = await freePort();
  const args = ['--kubeconfig', E2E_KUBECONFIG, '--state-dir', resolve(E2E_STATE_DIR, 'restart')];
  second = await startSecondConsole(args, { port });
  const context = await browser.newContext({ storageState: undefined });
  const page = await context.newPage();
  await page.goto(second.link);
  await page.goto(`${second.url}/incident`);
  await expect(page.getByRole('heading', { level: 1, name: 'Incident' })).toBeVisible();
  await expect(page.getByRole('status', { name: /^Informers synced/ })).toBeVisible({ timeout: 30_000 });

  second.stop();
  // the same port again, once the old process let go of it
  await expect(async () => {
    second = await startSecondConsole(args, { port });
  }).toPass({ timeout: 90_000, intervals: [1_000, 2_000] });

  await expect(page).toHaveURL(/\/signin\?.*ended=gone/, { timeout: 60_000 });
  await expect(page.getByText('Your session ended: the console no longer knows it')).toBeVisible();
  await context.close();
});
