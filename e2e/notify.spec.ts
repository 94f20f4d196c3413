import * as k8s from '@kubernetes/client-node';
import { expect, type Page, test } from '@playwright/test';
import { budget, deleteFakeNode, E2E_KUBECONFIG, fakeDownNode, fencePolicy } from './helpers';

// Issue 25, item 3: browser notifications for announced and held fences, opt-in. The page's
// Notification is a stand-in that records what the console shows (a headless browser displays
// nothing to look at), granting the permission when asked, as a person clicking "Allow" would.
// Three nodes no kubelet runs, down from the start: one this spec's policy announces and then
// holds (paused), one another policy's budget (maxUnhealthy 0) holds from the start.
const POLICY = 'e2e-notify';
const BUDGET = 'e2e-notify-budget';
const LABEL = 'e2e.palisade.dev/notify';
const NODES = { announced: 'e2e-notify-a', budget: 'e2e-notify-b' } as const;
const ref = { group: 'palisade.dev', version: 'v1alpha1', plural: 'fencepolicies' };
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function custom() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

// never runs during the spec, whatever the load
const policy = (name: string, value: string, maxUnhealthy: number) =>
  fencePolicy(name, { selects: { [LABEL]: value }, maxUnhealthy, warningWindow: '600s' });

async function cleanUp() {
  const api = custom();
  for (const name of [POLICY, BUDGET])
    await api.deleteClusterCustomObject({ ...ref, name }).catch(() => undefined);
  for (const n of Object.values(NODES)) {
    await api.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: n }).catch(() => undefined);
    await deleteFakeNode(n);
  }
}

/** the browser's Notification, recording each one the page shows */
async function recordNotifications(page: Page) {
  await page.addInitScript(() => {
    const shown: { title: string; body?: string; tag?: string }[] = [];
    (window as unknown as { __notices: typeof shown }).__notices = shown;
    class Recorded {
      static permission: NotificationPermission = 'default';
      static async requestPermission() {
        Recorded.permission = 'granted';
        return 'granted' as const;
      }
      onclick: (() => void) | null = null;
      constructor(title: string, o: NotificationOptions = {}) {
        shown.push({ title, body: o.body, tag: o.tag });
      }
      close() {}
    }
    (window as unknown as { Notification: unknown }).Notification = Recorded;
  });
}

const titles = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { __notices: { title: string }[] }).__notices.map((n) => n.title),
  );

test.beforeAll(cleanUp);
test.afterAll(cleanUp);

test('opted in, the browser is notified of an announced fence, then of it held, and of a budget hold', async ({
  page,
}) => {
  test.setTimeout(budget(120_000));
  await recordNotifications(page);
  await page.goto('/incident');
  const toggle = page.getByTestId('incident-page').getByTestId('notify-toggle');
  await expect(toggle.getByTestId('notify-state')).toHaveText('Browser notifications: off');
  await toggle.getByRole('button', { name: 'Notify me of fences' }).click();
  await expect(toggle.getByTestId('notify-state')).toHaveText(
    'Browser notifications: on: announced and held fences',
  );
  await expect(toggle.getByRole('button', { name: 'Stop fence notifications' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );

  const api = custom();
  await api.createClusterCustomObject({ ...ref, body: policy(POLICY, 'announce', 3) });
  await api.createClusterCustomObject({ ...ref, body: policy(BUDGET, 'budget', 0) });
  await fakeDownNode(NODES.announced, { [LABEL]: 'announce' });
  await expect
    .poll(() => titles(page), { timeout: budget(45_000) })
    .toContainEqual(expect.stringMatching(new RegExp(`^Fence of ${NODES.announced} in \\d+ s$`)));

  await fakeDownNode(NODES.budget, { [LABEL]: 'budget' });
  await expect
    .poll(() => titles(page), { timeout: budget(45_000) })
    .toContain(`Fence of ${NODES.budget} held by the fencing budget`);

  // paused by hand (kubectl as the admin): the same fence, held now
  await api.patchClusterCustomObject(
    {
      ...ref,
      name: POLICY,
      body: {
        metadata: { annotations: { 'palisade.dev/paused-by': 'e2e', 'palisade.dev/paused-reason': 'e2e' } },
        spec: { paused: true },
      },
    },
    merge,
  );
  await expect
    .poll(() => titles(page), { timeout: budget(30_000) })
    .toContain(`Fence of ${NODES.announced} held: policy paused`);
  // each once: no repeats while nothing changes
  const all = await titles(page);
  expect(new Set(all).size).toBe(all.length);

  // off: nothing more, whatever happens
  await toggle.getByRole('button', { name: 'Stop fence notifications' }).click();
  await expect(toggle.getByTestId('notify-state')).toHaveText('Browser notifications: off');
  await api.patchClusterCustomObject({ ...ref, name: POLICY, body: { spec: { paused: false } } }, merge);
  await expect(page.getByTestId('fence-bar-text')).toHaveText(/fence.* in \d+ s/, {
    timeout: budget(30_000),
  });
  expect(await titles(page)).toEqual(all);
});
