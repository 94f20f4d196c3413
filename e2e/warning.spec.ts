import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, type Page, test } from '@playwright/test';
import { budget, createFencePolicy, E2E_KUBECONFIG, infra, infraEndpoint, RESERVED, tile } from './helpers';

// Issue 18, finding 1: every automatic fence is announced and cancellable for its window. The
// e2e server runs with --fence-policy none, so this spec installs a FencePolicy that covers its
// own node only (RESERVED.warning), partitions it, and checks: the Fencing page and the map's
// tile count down "fenced automatically in N s unless cancelled"; Pause holds it ("fence paused
// by policy …") and Resume lets the countdown go on; Cancel inside the window stops it, and the
// cancel is on the Audit page with who and why; Fence now on the cancelled fence then fences the
// node at once, by hand, audited. Then it heals the node and powers it on.
const DOCS = resolve(import.meta.dirname, '..', 'docs');
const NODE = RESERVED.warning;
const POLICY = 'e2e-warning';
const REASON = 'e2e: the node is in planned maintenance';
const FENCE_REASON = 'e2e: the rack is dark after all';
const ref = { group: 'palisade.dev', version: 'v1alpha1' };

function clients() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return { core: kc.makeApiClient(k8s.CoreV1Api), custom: kc.makeApiClient(k8s.CustomObjectsApi) };
}

/** The node's power back on (a fenced node stays off until someone does this). */
async function powerOn(node: string) {
  const { url, token } = infraEndpoint();
  await fetch(`${url}/v1/bmc/${node}/on`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

/** A FencePolicy that covers NODE only: the built-in power agent, off after `unhealthyFor` of Ready=Unknown. */
function createPolicy(name: string, unhealthyFor: string, warningWindow: string) {
  return createFencePolicy(name, {
    selects: { 'kubernetes.io/hostname': NODE },
    unhealthyFor,
    maxUnhealthy: 1,
    warningWindow,
  });
}

const COUNTDOWN = /fenced automatically in (\d+) s unless cancelled/;

/** The seconds a countdown shows now. */
async function secondsLeft(page: Page, testId: string, within = page.locator('body')): Promise<number> {
  const text = await within.getByTestId(testId).first().textContent();
  const m = text?.match(COUNTDOWN);
  return m ? Number(m[1]) : Number.NaN;
}

/** Open a guarded action from a button, give the reason if asked, send it, and wait for Done. */
async function guarded(page: Page, open: () => Promise<void>, reason?: string) {
  await open();
  const dialog = page.getByTestId('guarded-dialog');
  await expect(dialog).toBeVisible();
  if (reason) await dialog.getByTestId('guarded-reason-input').fill(reason);
  await dialog.getByTestId('guarded-submit').click();
  await expect(dialog.getByTestId('guarded-result')).toContainText('Done:', { timeout: 20_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
}

test('an automatic fence is announced, counts down, can be paused and is cancelled inside its window', async ({
  page,
}) => {
  test.setTimeout(budget(180_000));
  const { core, custom } = clients();
  // long enough to watch it, pause it, resume it and cancel it on 2 shared cores
  await createPolicy(POLICY, '2s', '120s');
  try {
    await page.goto('/fencing');
    await expect(page.getByTestId(`policy-${POLICY}`)).toContainText('announced 120s before the agent runs');
    await infra(NODE, 'partition');

    // before its NodeFence: the node is listed as coming, with its countdown
    const card = page.getByTestId(`fence-${NODE}`);
    await expect(page.getByTestId(`upcoming-${NODE}`).or(card)).toBeVisible({ timeout: 45_000 });
    // detected: the card counts down, live
    await expect(card.getByTestId('fence-phase')).toHaveText('Detected', { timeout: 45_000 });
    await expect(card.getByTestId('fence-warning')).toHaveText(COUNTDOWN);
    const first = await secondsLeft(page, 'fence-warning', card);
    expect(first).toBeGreaterThan(60);
    await expect
      .poll(() => secondsLeft(page, 'fence-warning', card), { timeout: 10_000 })
      .toBeLessThan(first);
    await page.screenshot({ path: resolve(DOCS, 'console-fencing-warning.png'), fullPage: true });

    // the map's tile says it too
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Map' }).click();
    await expect(tile(page, NODE).getByTestId('node-fence')).toHaveText(COUNTDOWN);
    // its name says when, as a clock time (a name that changed every second would be read out every second)
    await expect(tile(page, NODE)).toHaveAccessibleName(
      /fence: Detected, fenced automatically at \d\d:\d\d:\d\d unless cancelled/,
    );

    // Pause the policy from the fence's card: the fence is held, in words
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fencing' }).click();
    await guarded(page, () => card.getByTestId('guarded-open-pauseFencePolicy').click(), 'e2e: hold fencing');
    await expect(card.getByTestId('fence-warning')).toHaveText(`fence paused by policy ${POLICY}`);
    await expect(page.getByTestId(`policy-${POLICY}`).getByTestId('policy-paused')).toContainText(
      /paused by \S*admin\S*: e2e: hold fencing/,
    );
    // Resume (a destructive action: counted down): the countdown goes on
    await guarded(page, () => card.getByTestId('guarded-open-resumeFencePolicy').click());
    await expect(card.getByTestId('fence-warning')).toHaveText(COUNTDOWN);

    // Cancel inside the window: the fence ends before any agent ran
    await guarded(page, () => card.getByTestId('guarded-open-cancelFence').click(), REASON);
    await expect(card.getByTestId('fence-phase')).toHaveText('Cancelled', { timeout: 20_000 });
    await expect(card).toContainText(new RegExp(`Cancel requested by \\S*admin\\S*: ${REASON}`));
    await expect(card.getByTestId('fence-attempts')).toHaveCount(0);

    // audited: who and why
    await page.goto('/audit');
    // the person's action (the NodeFence's own Cancelled step, Palisade's record of what it did,
    // carries the same reason in a row of its own)
    const audit = page.getByTestId('audit-table');
    // (the history store keeps earlier runs' rows when the state directory is reused: the newest first)
    const row = audit.locator('tr', { hasText: REASON }).filter({ hasText: 'Cancel fence' }).first();
    await expect(row).toBeVisible();
    await expect(row).toContainText('admin');
    await expect(
      audit.locator('tr', { hasText: 'e2e: hold fencing' }).filter({ hasText: 'Pause fence policy' }).first(),
    ).toBeVisible();

    // the node is still down and nothing will fence it now (a person cancelled): Fence now, from
    // the cancelled fence's card, replaces it and runs at once (no second warning window)
    await page.goto('/fencing');
    await guarded(page, () => card.getByTestId('guarded-open-fenceNode').click(), FENCE_REASON);
    await expect(card.getByTestId('fence-phase')).toHaveText(/Fencing|Fenced|Releasing|Released/, {
      timeout: 20_000,
    });
    await expect(card.getByTestId('fence-requested-by')).toContainText(
      new RegExp(`Fenced by hand: requested by \\S*admin\\S*: ${FENCE_REASON}`),
    );
    await expect(card.getByTestId('fence-phase')).toHaveText(/^Released/, { timeout: 60_000 });
    await page.goto('/audit');
    await expect(
      page
        .getByTestId('audit-table')
        .locator('tr', { hasText: FENCE_REASON })
        .filter({ hasText: 'Fence node now' })
        .first(),
    ).toBeVisible();
  } finally {
    await custom
      .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: POLICY })
      .catch(() => undefined);
    await infra(NODE, 'heal');
    await powerOn(NODE);
  }
  // back on: Ready, and the fence's out-of-service taint is gone
  await expect(async () => {
    const n = await core.readNode({ name: NODE });
    expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/out-of-service') ?? false).toBe(false);
  }).toPass({ timeout: 90_000 });
  await custom.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: NODE }).catch(() => undefined);
});

// A node cancelled in one incident fails again: its new fence is announced while the first
// incident's NodeFence (Cancelled) is still there. The Fencing page marks that card as an earlier
// incident's, the incident view counts the new fence pending and offers Cancel for it, and that
// Cancel (written into the old NodeFence) ends the new incident's fence too, before any agent.
test('a second incident is announced over the first one’s cancelled fence, and cancelled from the incident view', async ({
  page,
}) => {
  test.setTimeout(budget(240_000));
  const { core, custom } = clients();
  const policy = `${POLICY}-again`;
  const ready = () =>
    expect(async () => {
      const n = await core.readNode({ name: NODE });
      expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }).toPass({ timeout: 90_000 });
  await custom.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: NODE }).catch(() => undefined);
  await ready();
  // announced for long enough to act on it twice on 2 shared cores
  await createPolicy(policy, '120s', '10s');
  try {
    await page.goto('/fencing');
    const upcoming = page.getByTestId(`upcoming-${NODE}`);
    const card = page.getByTestId(`fence-${NODE}`);
    await infra(NODE, 'partition');
    await expect(upcoming).toContainText(COUNTDOWN, { timeout: 60_000 });
    await guarded(page, () => upcoming.getByTestId('guarded-open-cancelFence').click(), REASON);
    await expect(card.getByTestId('fence-phase')).toHaveText('Cancelled', { timeout: 20_000 });
    await expect(upcoming).toHaveCount(0);

    // back, then down again: a new incident
    await infra(NODE, 'heal');
    await ready();
    await infra(NODE, 'partition');
    await expect(upcoming).toContainText(COUNTDOWN, { timeout: 60_000 });
    await expect(card.getByTestId('fence-earlier-incident')).toContainText(
      `An earlier incident's fence: ${NODE} failed again`,
    );

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incident' }).click();
    await expect(page.getByTestId('incident-count-fencesPending')).toContainText(/^[1-9]/);
    const row = page.getByTestId(`incident-remediation-${NODE}`);
    await expect(row.getByTestId('incident-fence-countdown')).toHaveText(COUNTDOWN);
    await guarded(page, () => row.getByTestId('guarded-open-cancelFence').click(), FENCE_REASON);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fencing' }).click();
    await expect(card).toContainText(new RegExp(`Cancel requested by \\S*admin\\S*: ${FENCE_REASON}`), {
      timeout: 20_000,
    });
    await expect(card.getByTestId('fence-phase')).toHaveText('Cancelled');
    await expect(card.getByTestId('fence-earlier-incident')).toHaveCount(0);
    await expect(upcoming).toHaveCount(0);
    await expect(card.getByTestId('fence-attempts')).toHaveCount(0);
  } finally {
    await custom
      .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: policy })
      .catch(() => undefined);
    await infra(NODE, 'heal');
  }
  await ready();
  await custom.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: NODE }).catch(() => undefined);
});
