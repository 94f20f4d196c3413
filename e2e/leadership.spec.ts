import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { clusterId, core, E2E_KUBECONFIG, keysReady, budget } from './helpers';
import { signInPage } from './signin';

// The Leadership page on the e2e console: one replica on the embedded cluster, so it holds the
// controller Lease and runs the loops (the aggregator among them). The history reads the Events
// Palisade records on the Lease: a LeaderElection per acquisition and a StaleLeaderWrite per
// write the webhook refused (action `epoch-<N>`, the stale writer's epoch; reportingInstance, the
// refusing replica). The test writes one of each through the Kubernetes API, as the emitting side
// does (where that side runs, its own LeaderElection Event for this term is the same term, shown
// once), and the page names the replica that led that epoch; it also writes the README's
// docs/console-leadership.png.
const DOCS = resolve(import.meta.dirname, '..', 'docs');
const LEASE = { namespace: 'kube-system', name: 'palisade-controller' };
test.use({ viewport: { width: 1440, height: 900 } });

function leaseEvent(
  name: string,
  e: Pick<k8s.CoreV1Event, 'reason' | 'type' | 'message' | 'action' | 'reportingInstance' | 'count'>,
): k8s.CoreV1Event {
  const now = new Date();
  return {
    metadata: { name, namespace: LEASE.namespace },
    involvedObject: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...LEASE },
    source: { component: 'palisade' },
    reportingComponent: 'palisade',
    firstTimestamp: now,
    lastTimestamp: now,
    ...e,
  };
}

test('the Leadership page shows the Lease, this replica leading, its loops and the history', async ({
  page,
  request,
}) => {
  test.setTimeout(budget(60_000));
  const cluster = await clusterId(request);
  await page.goto('/');
  // reached from the navigation, and by its keys
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leadership' }).click();
  await expect(page).toHaveURL(/\/leadership$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Leadership' })).toBeVisible();
  await page.goto('/');
  await expect(page.getByTestId(/^node-tile-/).first()).toBeVisible();
  await keysReady(page);
  await page.keyboard.press('g');
  await page.keyboard.press('l');
  await expect(page).toHaveURL(/\/leadership$/);

  // the replica that served the page (user menu) is the one the page names, and it holds the Lease
  await page.getByTestId('user-menu').click();
  const served = (await page.getByTestId('replica').textContent())?.replace(
    'served by Palisade replica ',
    '',
  );
  await page.getByTestId('user-menu').click();
  expect(served).toMatch(/^\S+_\d+_[0-9a-f]{8}$/);
  const section = page.getByRole('region', { name: `Leadership on ${cluster}` });
  await expect(section.getByTestId('own-identity')).toHaveText(served!);
  await expect(section.getByTestId('lease-holder')).toHaveText(`${served}this replica`);
  await expect(section.getByTestId('own-leads')).toContainText(/^yes, epoch \d+/);
  const epochText = await section.getByTestId('lease-epoch').textContent();
  const epoch = Number(epochText?.match(/^(\d+)/)?.[1]);
  expect(Number.isInteger(epoch), `epoch shown: ${epochText}`).toBe(true);
  await expect(section.getByText(`this replica leads (epoch ${epoch})`)).toBeVisible();
  await expect(section.getByRole('region', { name: 'Controller Lease' })).toContainText(
    `${LEASE.namespace}/${LEASE.name}`,
  );

  // the loops, running: the aggregator at least
  const loops = section.getByRole('table', { name: `Loops on ${cluster}` });
  const aggregator = loops.getByRole('row').filter({ hasText: /^aggregator/ });
  await expect(aggregator.first()).toContainText('running');

  // this replica's own term, seen by it (and, once recorded, from its LeaderElection Event)
  const terms = section.getByRole('table', { name: `Leader transitions on ${cluster}` });
  await expect(terms.getByTestId(`term-${epoch}`)).toContainText(served!);

  // the Events the emitting side writes: this replica's acquisition and a refused write of its
  // epoch (a synthetic one: the e2e console is the only replica, so no stale leader exists)
  const api = core();
  const stamp = Date.now().toString(36);
  const names = [`${LEASE.name}.e2e-elected-${stamp}`, `${LEASE.name}.e2e-stale-${stamp}`];
  const message = `refused UPDATE nodefences/status.palisade.dev a1-2: written by the leader of epoch ${epoch}, but Lease ${LEASE.namespace}/${LEASE.name} is at epoch ${epoch + 1} (holder e2e)`;
  try {
    await api.createNamespacedEvent({
      namespace: LEASE.namespace,
      body: leaseEvent(names[0], {
        reason: 'LeaderElection',
        type: 'Normal',
        message: `${served} became leader (epoch ${epoch})`,
        action: `epoch-${epoch}`,
        reportingInstance: served,
        count: 1,
      }),
    });
    await api.createNamespacedEvent({
      namespace: LEASE.namespace,
      body: leaseEvent(names[1], {
        reason: 'StaleLeaderWrite',
        type: 'Warning',
        message,
        action: `epoch-${epoch}`,
        reportingInstance: served,
        count: 3,
      }),
    });
    const term = terms.getByTestId(`term-${epoch}`);
    await expect(term).toContainText('Event');
    await expect(term).toContainText(`${served}this replica`);
    const stale = section.getByRole('table', { name: `Refused stale writes on ${cluster}` });
    const row = stale.getByTestId(`stale-${epoch}`);
    await expect(row).toContainText(`${served}this replica`);
    await expect(row.getByRole('cell').nth(2)).toHaveText('3');
    await expect(row).toContainText(message);
    // the replica whose webhook refused them (the Event's reportingInstance)
    await expect(row).toContainText(`refused by ${served}this replica`);
    await expect(section.getByRole('region', { name: 'Refused stale writes' })).toContainText(
      '3 refused writes recorded',
    );
    mkdirSync(DOCS, { recursive: true });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: resolve(DOCS, 'console-leadership.png') });
  } finally {
    for (const name of names)
      await api.deleteNamespacedEvent({ namespace: LEASE.namespace, name }).catch(() => undefined);
  }
  // gone from the page once deleted (it re-reads every 2 s)
  await expect(section.getByRole('table', { name: `Refused stale writes on ${cluster}` })).toBeHidden();
  await expect(section.getByText('None: no write of a deposed leader has been refused.')).toBeVisible();
});

test.describe('someone who may read the Lease but not list its Events', () => {
  test.use({ storageState: { cookies: [], origins: [] } });
  const SA = 'e2e-lease-reader';

  test('sees the Lease and this replica, and the stale writes disabled with the reason', async ({ page }) => {
    test.setTimeout(budget(60_000));
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(E2E_KUBECONFIG);
    const api = kc.makeApiClient(k8s.CoreV1Api);
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const ns = LEASE.namespace;
    const cleanup = () =>
      Promise.allSettled([
        rbac.deleteNamespacedRoleBinding({ namespace: ns, name: SA }),
        rbac.deleteNamespacedRole({ namespace: ns, name: SA }),
        api.deleteNamespacedServiceAccount({ namespace: ns, name: SA }),
      ]);
    await cleanup();
    try {
      await api.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: SA } } });
      await rbac.createNamespacedRole({
        namespace: ns,
        body: {
          metadata: { name: SA },
          rules: [
            {
              apiGroups: ['coordination.k8s.io'],
              resources: ['leases'],
              resourceNames: [LEASE.name],
              verbs: ['get'],
            },
          ],
        },
      });
      await rbac.createNamespacedRoleBinding({
        namespace: ns,
        body: {
          metadata: { name: SA },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: SA },
          subjects: [{ kind: 'ServiceAccount', name: SA, namespace: ns }],
        },
      });
      const token = (
        await api.createNamespacedServiceAccountToken({
          namespace: ns,
          name: SA,
          body: { spec: { audiences: [], expirationSeconds: 600 } },
        })
      ).status!.token;
      await signInPage(page, token, '/leadership');
      const section = page.getByRole('region', { name: /^Leadership on / });
      await expect(section.getByTestId('lease-holder')).toContainText('this replica');
      await expect(section.getByTestId('lease-epoch')).toHaveText(/^\d+ \(leaseTransitions\)$/);
      const stale = section.getByRole('region', { name: 'Refused stale writes' });
      await expect(stale.getByTestId('forbidden-reason')).toHaveText(
        `Not allowed: events is forbidden: User "system:serviceaccount:${ns}:${SA}" cannot list resource "events" in API group "" in the namespace "${ns}"`,
      );
      // the transitions still show, from the Lease and this replica: the Events are not read
      await expect(section.getByRole('region', { name: 'Leader transitions' })).toContainText(
        'From the Lease and what this replica saw only',
      );
    } finally {
      await cleanup();
    }
  });
});
