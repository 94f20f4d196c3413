// "Fence all held" (issue 25, item 5): two nodes down at once under a FencePolicy whose budget
// allows none (maxUnhealthy 0), so the budget holds both fences. From the incident view, one
// dialog shows each node's live verdict (unsafe: the budget holds it), wants a reason and the
// phrase "fence 2 nodes", and sends one Fence now per node through the seam: each NodeFence is
// created approved by the admin, with the reason. The nodes are Node objects no kubelet runs and
// no BMC answers for: their fences start, and fail at the agent, which harms nothing.
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { checkA11y } from './axe';
import { budget, createFencePolicy, deleteFakeNode, E2E_KUBECONFIG, fakeDownNode } from './helpers';

const DOCS = resolve(import.meta.dirname, '..', 'docs');
const POLICY = 'e2e-fence-held';
const LABEL = 'e2e.palisade.dev/fence-held';
const NODES = ['e2e-held-1', 'e2e-held-2'];
const ref = { group: 'palisade.dev', version: 'v1alpha1' };
const REASON = `e2e: the rack is really down (${Date.now().toString(36)})`;

function custom() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

async function cleanUp() {
  const api = custom();
  await api
    .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: POLICY })
    .catch(() => undefined);
  for (const n of NODES) {
    await api.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: n }).catch(() => undefined);
    await deleteFakeNode(n);
  }
}

test.beforeAll(cleanUp);
test.afterAll(cleanUp);

test('fence all held: one dialog, each verdict shown, a typed phrase, one Fence now per node', async ({
  page,
}) => {
  test.setTimeout(budget(120_000));
  await createFencePolicy(POLICY, { selects: { [LABEL]: 'true' }, maxUnhealthy: 0, warningWindow: '600s' });
  for (const n of NODES) await fakeDownNode(n, { [LABEL]: 'true' });

  await page.goto('/incident');
  const open = page.getByTestId('fence-all-held');
  await expect(open).toHaveText(/^Fence all \d+ held…$/, { timeout: budget(45_000) });
  await open.click();
  const dialog = page.getByTestId('fence-held-dialog');
  for (const n of NODES)
    await expect(dialog.getByTestId(`fence-held-item-${n}`)).toContainText(/unsafe: .*budget/, {
      timeout: budget(20_000),
    });
  const submit = dialog.getByTestId('fence-held-submit');
  await expect(submit).toBeDisabled();
  await dialog.getByTestId('fence-held-reason').fill(REASON);
  const phrase = (await dialog
    .getByText(/^fence \d+ nodes$/)
    .first()
    .textContent())!;
  await dialog.getByTestId('fence-held-phrase').fill('fence 1 node');
  await expect(submit).toBeDisabled();
  await dialog.getByTestId('fence-held-phrase').fill(phrase);
  await expect(submit).toBeEnabled();
  await page.screenshot({ path: resolve(DOCS, 'console-fence-all-held.png') });
  await checkA11y(page, 'fence all held dialog');
  await submit.click();
  for (const n of NODES)
    await expect(dialog.getByTestId(`fence-held-item-${n}`)).toContainText(
      `started: NodeFence ${n} is created: the fencing controller fences ${n} now`,
      { timeout: budget(30_000) },
    );
  // each NodeFence approved and requested by the admin, with the reason
  for (const n of NODES) {
    const f = (await custom().getClusterCustomObject({ ...ref, plural: 'nodefences', name: n })) as {
      spec: { approvedBy?: string; requestedBy?: { by: string; reason: string } };
    };
    expect(f.spec.approvedBy).toMatch(/admin/);
    expect(f.spec.requestedBy).toMatchObject({ by: expect.stringMatching(/admin/), reason: REASON });
  }
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
});
