// The guarded force-delete dialog end to end: a pod's page offers "Force delete…"; the dialog
// explains what can go wrong (the node is not fenced, kubectl's warning) with a server-side dry
// run, refuses to send until the pod's name and a reason are typed, counts down 5 seconds
// (cancellable: nothing happens), then deletes, and the Audit page shows who and why.
import { expect, test } from '@playwright/test';
import { clusterId, core } from './helpers';

const NAME = 'guarded-e2e';
// unique per run: a console kept between runs still lists the earlier runs' records
const REASON = `e2e: the guarded dialog (${Date.now().toString(36)})`;

test('force delete through the guarded dialog, cancelled once, then recorded in the audit', async ({
  page,
  request,
}) => {
  const cluster = await clusterId(request);
  const api = core();
  await api
    .deleteNamespacedPod({ namespace: 'default', name: NAME, gracePeriodSeconds: 0 })
    .catch(() => undefined);
  await expect(async () => {
    await api.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: NAME }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
    });
  }).toPass({ timeout: 30_000 });
  // Ready first: the dialog's write is conditional on the version the person reviewed
  await expect(async () => {
    const p = await api.readNamespacedPod({ namespace: 'default', name: NAME });
    expect(p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).toBe(true);
  }).toPass({ timeout: 30_000 });
  const uid = (await api.readNamespacedPod({ namespace: 'default', name: NAME })).metadata!.uid;

  await page.goto(`/clusters/${cluster}/namespaces/default/pods/${NAME}`);
  await page.getByTestId('guarded-open-forceDeletePod').click();
  const dialog = page.getByTestId('guarded-dialog');
  await expect(dialog).toContainText('Unsafe');
  await expect(dialog).toContainText('is not fenced');
  await expect(dialog).toContainText(
    'Immediate deletion does not wait for confirmation that the running resource has been terminated.',
  );
  await expect(page.getByTestId('guarded-dry-run')).toContainText('would be removed from the API');
  const submit = page.getByTestId('guarded-submit');
  await expect(submit).toBeDisabled();
  await page.getByTestId('guarded-confirm-input').fill(NAME);
  await expect(submit).toBeDisabled();
  await page.getByTestId('guarded-reason-input').fill(REASON);
  await expect(submit).toBeEnabled();

  await submit.click();
  await expect(page.getByTestId('guarded-countdown')).toContainText(/Sending in [1-5] s/);
  await page.getByTestId('guarded-cancel').click();
  await expect(page.getByTestId('guarded-countdown')).toHaveCount(0);
  await expect(page.getByTestId('guarded-nothing-sent')).toContainText('nothing was sent');
  // well past the countdown: nothing was sent
  await page.waitForTimeout(6_000);
  expect((await api.readNamespacedPod({ namespace: 'default', name: NAME })).metadata!.uid).toBe(uid);

  await submit.click();
  await expect(page.getByTestId('guarded-result')).toContainText(
    'Done: pod default/guarded-e2e was removed',
    {
      timeout: 15_000,
    },
  );
  await expect(async () => {
    const p = await api.readNamespacedPod({ namespace: 'default', name: NAME }).catch(() => undefined);
    expect(p?.metadata?.uid).not.toBe(uid);
  }).toPass();

  await page.goto('/audit');
  const row = page.getByTestId('audit-table').locator('tr', { hasText: REASON });
  // the Audit page is live: the record appears without a refresh
  await expect(page.getByTestId('audit-live')).toContainText('live');
  await expect(row).toBeVisible();
  await expect(row).toContainText('Force delete pod');
  await expect(row).toContainText('overridden');
  await expect(row).toContainText('admin');
});
