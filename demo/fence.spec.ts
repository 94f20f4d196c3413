// Demo flow "fence": seed 000's incident, handled. The node running the database pod
// orders-db-0 (StatefulSet, RWO volume) is partitioned from the console's node panel. The demo
// FencePolicy that `npm start` ships detects it (Ready Unknown for 10 s and a stale Lease),
// fences it over IPMI with the real fence_ipmilan against the node's ipmi_sim BMC (the built-in
// power agent where the IPMI tools are missing), confirms the power is off with a status query,
// releases with the out-of-service taint, and the replacement orders-db-0 runs on another node
// with its volume — while the ground-truth checker confirms no second copy ever ran.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, type Page, test } from '@playwright/test';
import { demoPaths } from './paths.js';

const paths = demoPaths('fence');
const POD = 'orders-db-0';
const shot = (page: Page, file: string) =>
  page.screenshot({ path: resolve(paths.results, file), fullPage: true });

function api() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(paths.kubeconfig);
  return { core: kc.makeApiClient(k8s.CoreV1Api), storage: kc.makeApiClient(k8s.StorageV1Api) };
}

async function infraGet(path: string) {
  const { url, token } = JSON.parse(await readFile(paths.infraJson, 'utf8'));
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

async function readyPod(core: k8s.CoreV1Api, notOn?: string): Promise<k8s.V1Pod> {
  let pod: k8s.V1Pod | undefined;
  await expect(async () => {
    pod = await core.readNamespacedPod({ name: POD, namespace: 'shop' });
    expect(pod.metadata?.deletionTimestamp).toBeFalsy();
    expect(pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).toBe(true);
    if (notOn) expect(pod.spec?.nodeName).not.toBe(notOn);
  }).toPass({ timeout: 120_000, intervals: [500] });
  return pod!;
}

test('fence: a partitioned database node is fenced over IPMI and its pod runs elsewhere, safely', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await mkdir(paths.results, { recursive: true });
  const { core, storage } = api();
  const started = Date.now();
  const before = await readyPod(core);
  const node = before.spec!.nodeName!;
  const marks: Record<string, number> = {};

  await test.step('before: the map, and the demo FencePolicy on the Fencing page', async () => {
    await page.goto('/fencing');
    await expect(page.getByTestId('policy-demo')).toBeVisible();
    await shot(page, '01-fencing-policy.png');
    await page.goto('/');
    await expect(page.getByTestId(`node-tile-${node}`)).toHaveAccessibleName(
      new RegExp(`^Node ${node}: Ready`),
    );
  });

  await test.step(`partition ${node} from its node panel`, async () => {
    await page.getByTestId(`node-tile-${node}`).click();
    const sim = page.getByRole('region', { name: 'Embedded cluster (simulation)' });
    await sim.getByRole('button', { name: `Simulate partition on ${node}` }).click();
    await expect(sim.getByRole('status')).toHaveText('partition: done');
    marks.partitioned = Date.now();
    await expect(page.getByTestId(`node-tile-${node}`)).toHaveAttribute('data-state', 'unknown', {
      timeout: 30_000,
    });
    await shot(page, '02-node-unknown.png');
  });

  await test.step('Palisade announces the fence: the warning window counts down, Cancel and Pause ready', async () => {
    await expect(page.getByTestId('node-panel-fence')).toBeVisible({ timeout: 60_000 });
    marks.detected = Date.now();
    await page.goto('/fencing');
    const card = page.getByTestId(`fence-${node}`);
    await expect(card.getByTestId('fence-warning')).toHaveText(
      /fenced automatically in \d+ s unless cancelled/,
    );
    await expect(card.getByTestId('guarded-open-cancelFence')).toBeVisible();
    await shot(page, '02b-warning-window.png');
  });

  await test.step('Palisade fences the node; the status query confirms the power is off', async () => {
    const card = page.getByTestId(`fence-${node}`);
    await expect(card.getByTestId('fence-attempts')).toContainText('✓ power off', { timeout: 90_000 });
    marks.fenced = Date.now();
    await shot(page, '03-fenced.png');
    await expect(card.getByTestId('fence-phase')).toHaveText('Released — needs repair', { timeout: 90_000 });
    await expect(card.getByTestId('fence-next-step')).toContainText(`power on or repair it`);
    await expect(card.getByTestId('fence-released')).toContainText(`shop/${POD}`);
    marks.released = Date.now();
  });

  const after = await test.step('the replacement runs on another node, with its volume', async () => {
    const p = await readyPod(core, node);
    marks.replaced = Date.now();
    const vas = await storage.listVolumeAttachment();
    expect(vas.items.some((v) => v.spec.nodeName === p.spec?.nodeName && v.status?.attached)).toBe(true);
    expect(vas.items.some((v) => v.spec.nodeName === node)).toBe(false);
    await page.goto('/');
    await expect(page.getByTestId(`node-tile-${node}`).getByTestId('node-fence')).toHaveText(
      'fence: released — power on or repair it',
    );
    await page.getByTestId(`node-tile-${node}`).click();
    await shot(page, '04-map-released.png');
    return p;
  });

  await test.step('the incident view names the next human step for the released node', async () => {
    await page.goto('/incident');
    await expect(page.getByTestId(`incident-remediation-${node}`)).toContainText(
      `power on or repair ${node}`,
    );
    await shot(page, '05-incident-next-step.png');
  });

  const violations = (await infraGet('/v1/violations')).violations as unknown[];
  const bmc = await infraGet(`/v1/bmc/${node}`);
  const summary = {
    node,
    pod: POD,
    oldUid: before.metadata?.uid,
    newUid: after.metadata?.uid,
    newNode: after.spec?.nodeName,
    bmcPower: bmc.power,
    seconds: Object.fromEntries(
      Object.entries(marks).map(([k, v]) => [k, Math.round((v - (marks.partitioned ?? started)) / 100) / 10]),
    ),
    violations,
  };
  const text = [
    `fence demo: ${POD} on ${node} partitioned, fenced and replaced on ${summary.newNode}`,
    `  seconds after the partition: ${Object.entries(summary.seconds)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `  BMC power of ${node}: ${bmc.power}; checker violations: ${violations.length}`,
  ].join('\n');
  console.log(text);
  await writeFile(resolve(paths.results, 'summary.txt'), `${text}\n`);
  await writeFile(resolve(paths.results, 'summary.json'), JSON.stringify(summary, null, 1));
  expect(bmc.power).toBe('off');
  expect(violations).toEqual([]);
  if (process.env.PALISADE_DEMO_DOCS === '1')
    await copyFile(resolve(paths.results, '03-fenced.png'), resolve(paths.docs, 'demo-fence.png'));
});
