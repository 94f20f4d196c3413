// Issue 18's findings about pages that did not point the way (2, 3, 6, 8), each as a commander
// met it: the force-delete dialog on a node a policy is about to fence says "wait" and follows
// the fence while open; the dialog and the Volumes page give one force-detach time; the stuck
// volume names the fence on its node; Nodes rows open the node; a safe detach asks no
// 68-character name; a pod page says when its pod was replaced. The e2e server runs without the
// demo policy, so the fence test installs one that covers only its node (as fencing.spec does).
import { createHash } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { expect, type Page, test } from '@playwright/test';
import {
  budget,
  clusterId,
  createFencePolicy,
  E2E_KUBECONFIG,
  fakeReadyNode,
  infra,
  infraEndpoint,
  RESERVED,
} from './helpers';

const ref = { group: 'palisade.dev', version: 'v1alpha1' };
const POLICY = 'e2e-pages';

function clients() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return {
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    storage: kc.makeApiClient(k8s.StorageV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
  };
}

/** A Ready orders-db pod (StatefulSet, RWO volume) on a node no other spec breaks. */
async function ordersDb(core: k8s.CoreV1Api, avoid: string[] = []): Promise<{ node: string; name: string }> {
  let found: { node: string; name: string } | undefined;
  await expect(async () => {
    const pods = await core.listNamespacedPod({ namespace: 'shop' });
    const p = pods.items.find(
      (x) =>
        x.metadata?.name?.startsWith('orders-db-') &&
        !x.metadata.deletionTimestamp &&
        x.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
        ![...Object.values<string>(RESERVED), ...avoid].includes(x.spec?.nodeName ?? ''),
    );
    expect(p).toBeDefined();
    found = { node: p!.spec!.nodeName!, name: p!.metadata!.name! };
  }).toPass({ timeout: 60_000 });
  return found!;
}

async function forceDeleteDialog(page: Page, cluster: string, name: string) {
  await page.goto(`/clusters/${cluster}/namespaces/shop/pods/${name}`);
  await page.getByTestId('guarded-open-forceDeletePod').click();
  const dialog = page.getByTestId('guarded-dialog');
  await expect(dialog.getByTestId('guarded-verdict')).toBeVisible();
  return dialog;
}

/** "30 s" from the Volumes page's "Force detach: 30 s after a pod leaves a NotReady node". */
async function volumesForceDetach(page: Page): Promise<string> {
  await page.goto('/volumes');
  const line = page.getByTestId('volumes-force-detach');
  await expect(line).toContainText('after a pod leaves a NotReady node');
  const m = (await line.textContent())?.match(/Force detach:\s*(.+?) after a pod leaves/);
  expect(m).toBeTruthy();
  return m![1];
}

test('finding 3: the force-delete dialog and the Volumes page give one force-detach time', async ({
  page,
  request,
}) => {
  const cluster = await clusterId(request);
  const { core } = clients();
  const wait = await volumesForceDetach(page);
  await expect(page.getByTestId('volumes-force-detach')).toContainText("this cluster's setting");
  const { name } = await ordersDb(core);
  const dialog = await forceDeleteDialog(page, cluster, name);
  await expect(dialog).toContainText(
    `force-detached after ${wait} on an unreachable node: this cluster's setting`,
  );
  await expect(dialog).not.toContainText('6 minutes');
  await page.keyboard.press('Escape');
});

test('finding 6: a Nodes row opens the node on the map, by click and by Enter', async ({ page }) => {
  await page.goto('/nodes');
  const table = page.getByRole('table', { name: 'Nodes' });
  const first = table.getByRole('row').nth(1);
  const name = ((await first.getByRole('cell').first().textContent()) ?? '').trim();
  await first.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/\\?node=${name}$`));
  await expect(page.getByRole('complementary', { name: `Node ${name}` })).toBeVisible();

  await page.goto('/nodes');
  await table.getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('complementary', { name: `Node ${name}` })).toBeVisible();
});

test('finding 6: detaching a healthy volume asks for no 68-character name', async ({ page }) => {
  const { core, storage } = clients();
  // a volume of a driver the embedded cluster does not run: its attachment stays as made
  const driver = 'e2e.palisade.dev';
  const pv = 'e2e-pages-healthy';
  const va = `csi-${createHash('sha256').update(pv).digest('hex')}`;
  const nodes = await core.listNode();
  const node = nodes.items
    .map((n) => n.metadata!.name!)
    .find((n) => !Object.values<string>(RESERVED).includes(n))!;
  await storage.deleteVolumeAttachment({ name: va }).catch(() => undefined);
  await core.deletePersistentVolume({ name: pv }).catch(() => undefined);
  await core.createPersistentVolume({
    body: {
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        csi: { driver, volumeHandle: pv },
      },
    },
  });
  await storage.createVolumeAttachment({
    body: {
      metadata: { name: va },
      spec: { attacher: driver, nodeName: node, source: { persistentVolumeName: pv } },
    },
  });
  try {
    await page.goto('/volumes');
    const row = page.getByTestId(`volume-row-${pv}`);
    await row.getByRole('button', { name: 'Detach' }).click();
    const dialog = page.getByTestId('guarded-dialog');
    await expect(dialog.getByTestId('guarded-verdict')).toHaveText(/^Safe/);
    await expect(dialog.getByTestId('guarded-confirm-input')).toHaveCount(0);
    await expect(dialog.getByTestId('guarded-reason-input')).toHaveCount(0);
    await expect(dialog).not.toContainText(`Type ${va}`);
    await dialog.getByTestId('guarded-submit').click();
    await expect(dialog.getByTestId('guarded-result')).toContainText('Done', { timeout: 20_000 });
    await expect(async () => {
      const left = await storage.readVolumeAttachment({ name: va }).catch(() => undefined);
      expect(left).toBeUndefined();
    }).toPass({ timeout: 15_000 });
  } finally {
    await storage.deleteVolumeAttachment({ name: va }).catch(() => undefined);
    await core.deletePersistentVolume({ name: pv }).catch(() => undefined);
  }
});

/** A Node with no kubelet, kept Ready by renewing its Lease, that reports `inUse` mounted. */
test('finding 6: a healthy node still unmounting the volume asks for one tick, not the name', async ({
  page,
}) => {
  const { core, storage } = clients();
  const driver = 'e2e.palisade.dev';
  const pv = 'e2e-pages-unmounting';
  const node = 'e2e-pages-node';
  const va = `csi-${createHash('sha256').update(pv).digest('hex')}`;
  await storage.deleteVolumeAttachment({ name: va }).catch(() => undefined);
  await core.deletePersistentVolume({ name: pv }).catch(() => undefined);
  await core.deleteNode({ name: node }).catch(() => undefined);
  const removeNode = await fakeReadyNode(node, [`kubernetes.io/csi/${driver}^${pv}`]);
  try {
    await core.createPersistentVolume({
      body: {
        metadata: { name: pv },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          csi: { driver, volumeHandle: pv },
        },
      },
    });
    await storage.createVolumeAttachment({
      body: {
        metadata: { name: va },
        spec: { attacher: driver, nodeName: node, source: { persistentVolumeName: pv } },
      },
    });
    await page.goto('/volumes');
    await page.getByTestId(`volume-row-${pv}`).getByRole('button', { name: 'Detach' }).click();
    const dialog = page.getByTestId('guarded-dialog');
    await expect(dialog.getByTestId('guarded-verdict')).toHaveText(/^Unsafe/);
    await expect(dialog).toContainText(`the kubelet on ${node} still reports volume ${pv} in use`);
    await expect(dialog.getByTestId('guarded-confirm-input')).toHaveCount(0);
    await expect(dialog.getByTestId('guarded-reason-input')).toHaveCount(0);
    const submit = dialog.getByTestId('guarded-submit');
    await expect(submit).toBeDisabled();
    await dialog.getByTestId('guarded-acknowledge').check();
    await expect(submit).toBeEnabled();
    await submit.click();
    await expect(dialog.getByTestId('guarded-result')).toContainText('Done', { timeout: 20_000 });
    await expect(async () => {
      expect(await storage.readVolumeAttachment({ name: va }).catch(() => undefined)).toBeUndefined();
    }).toPass({ timeout: 15_000 });
  } finally {
    await storage.deleteVolumeAttachment({ name: va }).catch(() => undefined);
    await core.deletePersistentVolume({ name: pv }).catch(() => undefined);
    await removeNode();
  }
});

test('finding 8: a pod page says when its pod was replaced, and keeps the old one apart', async ({
  page,
  request,
}) => {
  test.setTimeout(budget(120_000));
  const cluster = await clusterId(request);
  const { core, apps } = clients();
  const sts = 'e2e-pages-sts';
  const name = `${sts}-0`;
  await apps.deleteNamespacedStatefulSet({ namespace: 'default', name: sts }).catch(() => undefined);
  await expect(async () => {
    await apps.createNamespacedStatefulSet({
      namespace: 'default',
      body: {
        metadata: { name: sts },
        spec: {
          replicas: 1,
          serviceName: sts,
          selector: { matchLabels: { app: sts } },
          template: {
            metadata: { labels: { app: sts } },
            spec: { containers: [{ name: 'app', image: 'app:1' }], terminationGracePeriodSeconds: 1 },
          },
        },
      },
    });
  }).toPass({ timeout: 30_000 });
  try {
    let old: k8s.V1Pod | undefined;
    await expect(async () => {
      old = await core.readNamespacedPod({ namespace: 'default', name });
      expect(old.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).toBe(true);
    }).toPass({ timeout: 60_000 });
    await page.goto(`/clusters/${cluster}/namespaces/default/pods/${name}`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
    await expect(page.getByTestId('pod-replaced')).toHaveCount(0);

    await core.deleteNamespacedPod({ namespace: 'default', name, gracePeriodSeconds: 0 });
    let now: k8s.V1Pod | undefined;
    await expect(async () => {
      now = await core.readNamespacedPod({ namespace: 'default', name });
      expect(now.metadata?.uid).not.toBe(old!.metadata!.uid);
    }).toPass({ timeout: 60_000 });

    const notice = page.getByTestId('pod-replaced');
    await expect(notice).toContainText(`This is a new pod (uid ${now!.metadata!.uid}`, { timeout: 30_000 });
    await expect(notice).toContainText(
      new RegExp(`replacing the one that ran on ${old!.spec!.nodeName} until \\d{2}:\\d{2}:\\d{2}`),
    );
    await expect(notice.getByRole('link', { name: "The old pod's history on the timeline" })).toHaveAttribute(
      'href',
      `/timeline?cluster=${encodeURIComponent(cluster)}&q=default%2F${name}`,
    );
    await expect(page.getByTestId('pod-replaced-events')).toContainText(`uid ${old!.metadata!.uid}`);
  } finally {
    await apps.deleteNamespacedStatefulSet({ namespace: 'default', name: sts }).catch(() => undefined);
    await core
      .deleteNamespacedPod({ namespace: 'default', name, gracePeriodSeconds: 0 })
      .catch(() => undefined);
  }
});

test('findings 2 and 6: on a node a policy is about to fence, the dialog says wait and follows the fence', async ({
  page,
  request,
}) => {
  test.setTimeout(budget(240_000));
  const cluster = await clusterId(request);
  const { core, custom } = clients();
  const { node, name } = await ordersDb(core);
  await custom
    .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: POLICY })
    .catch(() => undefined);
  await createFencePolicy(POLICY, {
    selects: { 'kubernetes.io/hostname': node },
    // long enough to open the dialog in the window, short enough for the test
    unhealthyFor: '30s',
    maxUnhealthy: 1,
    // Manual: the fence waits for approval, so the pod stays for the dialog to follow
    approval: 'Manual',
    timeout: '30s',
  });
  try {
    await infra(node, 'partition');
    await expect(async () => {
      const n = await core.readNode({ name: node });
      expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('Unknown');
    }).toPass({ timeout: 30_000 });

    const dialog = await forceDeleteDialog(page, cluster, name);
    const wait = dialog.getByTestId('guarded-wait');
    await expect(wait).toContainText(
      new RegExp(
        // a Manual policy: the fence is detected then waits for a person (not "will fence it")
        `${node} is not fenced yet: FencePolicy ${POLICY} detects it (in \\d+ s|now) and asks a person to approve the fence \\(the policy is Manual\\); approve it on the Fencing page, wait for the fence, then force delete is safe`,
      ),
    );
    await expect(dialog.getByTestId('guarded-submit')).toContainText('anyway, without waiting');

    // the volume's row names the fence coming for its node
    const volumes = await page.context().newPage();
    await volumes.goto('/volumes');
    await volumes.getByRole('searchbox', { name: 'Search volumes' }).fill(`shop/data-${name}`);
    await expect(volumes.getByTestId('volume-fence').first()).toContainText(
      new RegExp(
        `FencePolicy ${POLICY} detects ${node} (in \\d+ s|now), then waits for a person's approval|NodeFence ${node} waits for a person's approval`,
      ),
      { timeout: 30_000 },
    );

    // the same dialog, never reopened, follows the fence: detected, now waiting for approval
    await expect(wait).toContainText(
      `${node} is not fenced yet: NodeFence ${node} waits for a person's approval (FencePolicy ${POLICY} is Manual); approve it on the Fencing page`,
      { timeout: 120_000 },
    );
    await expect(volumes.getByTestId('volume-fence').first()).toContainText(
      `NodeFence ${node} waits for a person's approval`,
    );
    await volumes.close();
  } finally {
    await custom
      .deleteClusterCustomObject({ ...ref, plural: 'fencepolicies', name: POLICY })
      .catch(() => undefined);
    await infra(node, 'heal');
    const { url, token } = infraEndpoint();
    await fetch(`${url}/v1/bmc/${node}/on`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
  }
  await expect(async () => {
    const n = await core.readNode({ name: node });
    expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/out-of-service') ?? false).toBe(false);
  }).toPass({ timeout: 90_000 });
  await custom.deleteClusterCustomObject({ ...ref, plural: 'nodefences', name: node }).catch(() => undefined);
});
