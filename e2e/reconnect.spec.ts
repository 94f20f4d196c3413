import { expect, test, type WebSocketRoute } from '@playwright/test';
import {
  core,
  healAndWait,
  infra,
  nodeReady,
  holdNode,
  RESERVED,
  releaseHeldNodes,
  tile,
  budget,
} from './helpers';

test.afterEach(releaseHeldNodes);

// The browser loses its live socket; the banner says so; a node partitioned meanwhile shows up
// as Unknown on the map after the socket comes back, without a page reload.
test('the map catches up after the live socket reconnects', async ({ page }) => {
  test.setTimeout(budget(150_000));
  const node = RESERVED.reconnect;
  await holdNode(node); // shared with incident.spec.ts

  // Every socket.io WebSocket goes through this route, so the test can cut it. (Chromium's
  // offline emulation alone does not close a WebSocket that is already open.)
  let offline = false;
  const sockets: WebSocketRoute[] = [];
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (offline) {
      void ws.close({ code: 1006, reason: 'offline' }).catch(() => {});
      return;
    }
    ws.connectToServer();
    sockets.push(ws);
  });
  let loads = 0;
  page.on('load', () => loads++);

  await page.goto('/');
  const t = tile(page, node);
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`));
  const banner = page.getByRole('alert').filter({ hasText: 'Disconnected from the Palisade server' });
  await expect(banner).toBeHidden();
  await expect(page.getByRole('status', { name: 'Informers synced' })).toBeVisible();
  expect(loads).toBe(1);

  const api = core();
  try {
    // lose the socket: close the open one, refuse new ones, and block HTTP (polling) too
    offline = true;
    await page.context().setOffline(true);
    for (const ws of sockets.splice(0)) await ws.close({ code: 1006, reason: 'offline' }).catch(() => {});
    await expect(banner).toBeVisible({ timeout: 10_000 });
    await expect(banner).toContainText(/Live updates stopped at .*Reconnecting/);
    await expect(page.getByRole('status', { name: 'Live updates disconnected' })).toBeVisible();

    // a change while the browser is offline: partition the node and wait for the API to say Unknown
    await infra(node, 'partition');
    await expect(async () => expect(await nodeReady(api, node)).toBe('Unknown')).toPass({
      timeout: 25_000,
    });
    // the map cannot know yet: it still shows the node Ready
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`));

    // back online: the socket reconnects (socket.io's backoff is at most ~7.5 s, then a handshake
    // that a loaded machine answers slowly) and catches up
    offline = false;
    await page.context().setOffline(false);
    await expect(banner).toBeHidden({ timeout: 45_000 });
    await expect(page.getByRole('status', { name: 'Informers synced' })).toBeVisible({ timeout: 10_000 });
    await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Unknown`), { timeout: 10_000 });
    await expect(t).toHaveAttribute('data-state', 'unknown');
  } finally {
    offline = false;
    await page.context().setOffline(false);
    await healAndWait(node);
  }
  // live updates flow again after the reconnect: the heal reaches the map too
  await expect(t).toHaveAccessibleName(new RegExp(`^Node ${node}: Ready`), { timeout: 20_000 });
  expect(loads).toBe(1);
});
