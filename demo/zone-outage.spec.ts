// Demo flow "zone-outage": zone-b of the demo cluster (zone-a when no database pod landed in
// zone-b) loses power. Its four nodes go Unknown
// together; the demo FencePolicy (here with `maxUnhealthy: 2`, as a site that fears a partition on
// the control plane's side more than dead nodes would set it) holds every fence: four nodes
// unhealthy are more than its budget. The incident commander opens the incident view from the
// map: what is broken, what is at risk (orders-db and queue pods stuck on the dark nodes), what
// is being done (nothing: the budget holds the fences, and says why) and what is safe next (a
// person may Fence now by hand, past the budget: the dialog says what that risks).
// Power comes back to rack b1; the two nodes still dark are within the budget now, and each
// fence is announced — "fenced automatically in N s unless cancelled" — in the sticky bar on top
// of every page. The commander cancels both from that bar within 3 s of the announcement (the
// power crew is on the phone), hears that the rest of the zone stays dark, and fences both by hand
// (Fence now: no window, recorded with their name). The fences release the nodes, the
// StatefulSets' pods start elsewhere, and the incident view names the next human step: power on
// or repair the nodes still off.
// Power comes back to the whole zone: the nodes boot, their fences recover, and once the cluster
// has been healthy for 20 s Palisade resolves the Incident it declared at the outage — the view
// says when and how long it lasted, the recap lists the four nodes, and the Markdown export holds
// every fault (the infrastructure's power cuts) before the fence steps, oldest first.
// Then the console is restarted on the same state directory and the timeline still tells the
// whole story, grouped by the incident in lanes (nodes, fences, people): the history store
// outlives the console (and the cluster's one-hour Events).
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { expect, type Page, test } from '@playwright/test';
import { budget } from '../e2e/helpers.js';
import { demoToken } from '../e2e/signin.js';
import { FENCE_PLURAL, GROUP, parseNodeFence, POLICY_PLURAL, VERSION } from '../lib/fencing/types.js';
import { type EmbeddedCluster, startEmbeddedCluster } from '../sim/cluster.js';
import { ipmiAvailable } from '../sim/infra/ipmi/bmcs.js';
import { freePort } from '../sim/real/ports.js';
import { loadScenario } from '../sim/scenario/load.js';
import { DEMO_POLICY } from '../sim/fencing/demoPolicy.js';
import { demoPaths } from './paths.js';

const paths = demoPaths('zone-outage');
const ROOT = resolve(import.meta.dirname, '..');
/** the zone that loses power: zone-b, unless the scheduler put no database pod there (then zone-a) */
let ZONE = 'zone-b';
/** the rack whose power comes back first */
let RESTORED_RACK = 'b1';
/** the StatefulSets on zone-local storage (zone-a and zone-b): the outage must catch one of their pods */
const DATABASES = ['orders-db', 'queue'];
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const shot = (page: Page, file: string) =>
  page.screenshot({ path: resolve(paths.results, file), fullPage: true });

interface Console {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The console as its own process on the demo's state directory (where its history store is). */
async function startConsole(port: number): Promise<Console> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/main.ts',
      '--port',
      String(port),
      '--kubeconfig',
      paths.kubeconfig,
      '--state-dir',
      paths.stateDir,
      // the incident tracker resolves 20 s after the cluster is healthy (60 s by default)
      '--config',
      resolve(paths.stateDirAbs, 'palisade.yaml'),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } },
  );
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the console did not start:\n${out}`)), 120_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = out.match(/Palisade console: (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(() => fail(new Error(`the console exited at start:\n${out}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

let cluster: EmbeddedCluster | undefined;
let palisade: Console | undefined;

test.afterAll(async () => {
  await palisade?.stop();
  await cluster?.stop();
});

async function signIn(page: Page, url: string) {
  const r = await page.request.post(`${url}/auth/token`, {
    data: { token: demoToken(paths.stateDirAbs, 'admin') },
    headers: { origin: url },
  });
  expect(r.ok()).toBe(true);
}

test('zone-outage: a zone loses power; the incident view shows what is broken, at risk, being done and safe next', async ({
  page,
}) => {
  test.setTimeout(720_000);
  await rm(paths.stateDirAbs, { recursive: true, force: true });
  await mkdir(paths.results, { recursive: true });
  await mkdir(paths.stateDirAbs, { recursive: true });
  await writeFile(resolve(paths.stateDirAbs, 'palisade.yaml'), 'incidents:\n  resolveAfter: 20s\n');
  const marks: Record<string, number> = {};
  const spread: Record<string, string> = {};

  const c = await test.step('the embedded demo cluster, its FencePolicy with a budget of two', async () => {
    cluster = await startEmbeddedCluster({
      scenario: await loadScenario('demo'),
      backend: 'embedded',
      ipmi: ipmiAvailable(),
      demoFencePolicy: true,
      kubeconfigPath: paths.kubeconfig,
      log: () => undefined,
    });
    const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: POLICY_PLURAL,
        name: DEMO_POLICY,
        // a 30 s window: the sticky bar's Cancel must land inside it on a loaded CI machine too
        // (the 3 s the commander takes are measured and asserted on their own)
        body: { spec: { maxUnhealthy: 2, warningWindow: '30s' } },
      },
      merge,
    );
    return cluster;
  });
  const core = c.kc.makeApiClient(k8s.CoreV1Api);
  const custom = c.kc.makeApiClient(k8s.CustomObjectsApi);
  const nodes = (await core.listNode()).items;
  const zoneOf = (node: string) =>
    nodes.find((n) => n.metadata?.name === node)?.metadata?.labels?.['topology.kubernetes.io/zone'];
  // where the scheduler put the databases' six pods decides the zone (it spread them over zone-a
  // and zone-b in most runs, all into zone-a in some: the story needs one in the dark zone)
  const dbZones = await test.step('the databases scheduled', async () => {
    let zones: string[] = [];
    await expect
      .poll(
        async () => {
          const pods = (await core.listNamespacedPod({ namespace: 'shop' })).items.filter((p) =>
            DATABASES.some((d) => p.metadata?.name?.startsWith(`${d}-`)),
          );
          zones = pods
            .map((p) => (p.spec?.nodeName ? zoneOf(p.spec.nodeName) : undefined))
            .filter((z) => !!z) as string[];
          return zones.length;
        },
        { timeout: 120_000 },
      )
      .toBe(6);
    return zones;
  });
  if (!dbZones.includes(ZONE)) ZONE = 'zone-a';
  const zoneNodes = nodes
    .filter((n) => n.metadata?.labels?.['topology.kubernetes.io/zone'] === ZONE)
    .map((n) => n.metadata!.name!)
    .sort();
  expect(zoneNodes).toHaveLength(4);
  RESTORED_RACK = zoneNodes[0].split('-')[0];
  const restored = zoneNodes.filter((n) => n.startsWith(`${RESTORED_RACK}-`));
  // a database pod the outage catches: the replay afterwards must show it where it ran
  const caught = (await core.listNamespacedPod({ namespace: 'shop' })).items.find(
    (p) =>
      DATABASES.some((d) => p.metadata?.name?.startsWith(`${d}-`)) &&
      zoneNodes.includes(p.spec?.nodeName ?? ''),
  )!;
  const dark = zoneNodes.filter((n) => !restored.includes(n));
  const port = await freePort();
  palisade = await startConsole(port);
  const url = palisade.url;
  await signIn(page, url);

  await test.step('before: every node Ready on the map', async () => {
    await page.goto(`${url}/`);
    for (const n of zoneNodes)
      await expect(page.getByTestId(`node-tile-${n}`)).toHaveAccessibleName(new RegExp(`^Node ${n}: Ready`));
    await shot(page, '01-map-before.png');
  });

  await test.step(`${ZONE} loses power: its four nodes at once`, async () => {
    // a zone's power fails for all of its nodes together (the infrastructure, not the console)
    for (const n of zoneNodes) c.infra.powerOff(n, 'zone power loss');
    marks.powerOff = Date.now();
    for (const n of zoneNodes)
      await expect(page.getByTestId(`node-tile-${n}`)).toHaveAttribute('data-state', 'unknown', {
        timeout: 60_000,
      });
    await shot(page, '02-map-zone-dark.png');
  });

  await test.step('the map opens the incident view: four nodes down, fences held by the budget', async () => {
    await page.getByRole('link', { name: 'Open incident view' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Incident' })).toBeVisible();
    // the headline names the zone and the workloads hit, by name with ready/desired (issue 25)
    const headline = page.getByTestId('incident-status');
    await expect(headline).toContainText(`${ZONE} down: 4/4 nodes`, { timeout: 60_000 });
    await expect(headline).toContainText(/(orders-db|queue) [0-2]\/3/, { timeout: 60_000 });
    marks.headline = Date.now();
    // within 15 s of the outage (issue 25's definition of done; three times that on a loaded CI)
    expect(marks.headline - marks.powerOff).toBeLessThan(budget(15_000));
    const situation = page.getByTestId('incident-situation');
    await expect(situation).toContainText('4', { timeout: 60_000 });
    await expect(page.getByTestId('incident-remediation')).toContainText(/budget/i, { timeout: 90_000 });
    // which StatefulSets' pods ran in the zone is the scheduler's choice: orders-db, queue or both
    await expect(page.getByTestId('incident-at-risk')).toContainText('StatefulSet identity stuck');
    // capacity: the dark zone has no room; a database pod there can start again only in the other
    // zone its storage reaches (the SAN serves zones a and b, not c), once its node is fenced
    const capacity = page.getByTestId('incident-capacity');
    await expect(capacity.getByTestId(`incident-capacity-zone-${ZONE}`)).toHaveText(
      `${ZONE}: 0 of 4 nodes up: no room`,
    );
    const db = capacity.getByTestId('incident-replacement').filter({ hasText: /(orders-db|queue)-\d/ });
    await expect(db.first()).toContainText(
      `can start again in ${ZONE === 'zone-b' ? 'zone-a' : 'zone-b'} (4 nodes)`,
    );
    await expect(db.first()).not.toContainText('zone-c');
    marks.held = Date.now();
    await shot(page, '03-incident-held-by-budget.png');
    // the commander could fence a held node by hand (Fence now): the dialog says why the budget
    // holds it and asks for the name and a reason; here they decide to wait for the power crew
    const fenceNow = page.getByTestId('incident-remediation').getByTestId('guarded-open-fenceNode').first();
    await expect(fenceNow).toBeEnabled();
    await fenceNow.click();
    const dialog = page.getByTestId('guarded-dialog');
    await expect(dialog.getByTestId('guarded-verdict')).toHaveText(/Unsafe/, { timeout: 30_000 });
    await expect(dialog).toContainText('the budget holds automatic fences because');
    await expect(dialog.getByTestId('guarded-confirm-input')).toBeVisible();
    await dialog.screenshot({ path: resolve(paths.results, '03b-fence-now-held-by-budget.png') });
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(dialog).toBeHidden();
  });

  await test.step(`power returns to rack ${RESTORED_RACK}: the two dark nodes are within the budget; their fences are announced and cancelled from the sticky bar`, async () => {
    for (const n of restored) c.infra.powerOn(n);
    await page.goto(`${url}/incident`);
    // the sticky bar says it on every page, with Cancel all and Pause at hand
    const bar = page.getByRole('region', { name: 'Announced fences' });
    await expect(bar.getByTestId('fence-bar-text')).toHaveText(/^2 fences in \d+ s/, { timeout: 120_000 });
    marks.announced = Date.now();
    // the commander's part, timed: Cancel all, a reason from the list, Cancel them
    const all = page.getByRole('dialog', { name: 'Cancel all 2 announced fences' });
    await bar.getByTestId('fence-bar-cancel-all').click();
    await all.getByTestId('reason-choices').getByRole('button').first().click();
    await all.getByTestId('cancel-all-submit').click();
    marks.sent = Date.now();
    for (const n of dark)
      await expect(all.getByTestId(`cancel-all-item-${n}`)).toContainText('cancelled:', { timeout: 30_000 });
    marks.cancelled = Date.now();
    await all.screenshot({ path: resolve(paths.results, '04-cancel-all-from-the-bar.png') });
    await all.getByRole('button', { name: 'Close' }).click();
    await expect(bar).toHaveCount(0);
    for (const n of dark) {
      const f = parseNodeFence(
        await custom.getClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: FENCE_PLURAL,
          name: n,
        }),
      );
      expect(f.ok && f.value.spec.cancelRequested?.by).toMatch(/admin/);
      // no agent ran: the cancel landed inside the window
      expect(f.ok && (f.value.status.attempts ?? []).length).toBe(0);
    }
    // the remediation rows say cancelled, and offer Fence now
    for (const n of dark)
      await expect(page.getByTestId(`incident-remediation-${n}`)).toContainText(/Cancelled/, {
        timeout: 60_000,
      });
    await shot(page, '04b-incident-fences-cancelled.png');
    // the commander's reach: within 3 s of the bar showing the announcement, the cancel is sent
    // (issue 25's definition of done; three times that on CI, whose lanes load 2 cores to 15);
    // that it landed in time is the no-agent check above
    expect(marks.sent - marks.announced).toBeLessThan(budget(3_000));
  });

  await test.step('the rest of the zone stays dark: the commander fences both nodes by hand (Fence now)', async () => {
    const dialog = page.getByTestId('guarded-dialog');
    for (const n of dark) {
      await page.getByTestId(`incident-remediation-${n}`).getByTestId('guarded-open-fenceNode').click();
      await expect(dialog.getByTestId('guarded-verdict')).toHaveText(/Safe/, { timeout: 30_000 });
      await dialog
        .getByTestId('reason-choices')
        .getByRole('button', { name: 'the node is dead: release its pods and volumes now' })
        .click();
      if (n === dark[0]) await dialog.screenshot({ path: resolve(paths.results, '05-fence-now.png') });
      // Fence now is destructive: a 5 s countdown that can still be stopped, then it is sent
      await dialog.getByTestId('guarded-submit').click();
      await expect(dialog.getByTestId('guarded-result')).toContainText('Done:', { timeout: 30_000 });
      await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
      await expect(dialog).toBeHidden();
    }
    marks.fencedByHand = Date.now();
  });

  await test.step('the fences run and release the nodes; the next human step is named', async () => {
    await page.goto(`${url}/fencing`);
    for (const n of dark)
      await expect(page.getByTestId(`fence-${n}`).getByTestId('fence-phase')).toContainText('Released', {
        timeout: 180_000,
      });
    marks.released = Date.now();
    await page.goto(`${url}/incident`);
    const remediation = page.getByTestId('incident-remediation');
    for (const n of dark) await expect(remediation).toContainText(new RegExp(`power on or repair ${n}`));
    await shot(page, '06-incident-next-steps.png');
  });

  await test.step('power returns to the whole zone: Palisade resolves the incident; its recap and export', async () => {
    for (const n of dark) c.infra.powerOn(n);
    await page.goto(`${url}/incident`);
    const record = page.getByTestId('incident-record');
    // the nodes boot, their fences recover, the cluster stays healthy for 20 s: resolved
    await expect(record.getByTestId('incident-lifecycle')).toContainText(
      /^resolved at \d\d:\d\d:\d\d by Palisade, lasted \d+ (s|min)/,
      { timeout: 300_000 },
    );
    marks.resolved = Date.now();
    await expect(record.getByTestId('incident-recap')).toHaveAttribute('open', '');
    for (const n of zoneNodes)
      await expect(
        record.getByTestId('recap-nodes').getByRole('cell', { name: n, exact: true }),
      ).toBeVisible();
    // placement after recovery: a database whose ready replicas one node, rack or zone holds
    // (the fenced pods restarted in the other zone) is flagged with the rebalance at hand
    const placed = (await core.listNamespacedPod({ namespace: 'shop' })).items.filter(
      (p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && p.spec?.nodeName,
    );
    const rackOf = (n: string) =>
      nodes.find((x) => x.metadata?.name === n)?.metadata?.labels?.['palisade.dev/rack'];
    for (const db of DATABASES) {
      const at = placed.filter((p) => p.metadata?.name?.startsWith(`${db}-`)).map((p) => p.spec!.nodeName!);
      const most = Math.max(...at.map((n) => at.filter((m) => m === n).length));
      const together =
        at.length > 1 &&
        ((most * 2 > at.length && most > 1) ||
          new Set(at.map(rackOf)).size === 1 ||
          new Set(at.map(zoneOf)).size === 1);
      if (together)
        await expect(page.getByTestId('incident-placement')).toContainText(`${db}: `, { timeout: 30_000 });
      spread[db] = together ? 'flagged' : 'spread out';
    }
    await shot(page, '06b-incident-resolved.png');
    // the postmortem's export: every fault, fence step and action, oldest first
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      record.getByRole('button', { name: 'Export Markdown' }).click(),
    ]);
    const file = resolve(paths.results, 'incident.md');
    await download.saveAs(file);
    const md = await readFile(file, 'utf8');
    const rows = md.split('\n').filter((l) => /^\| \d{4}-/.test(l));
    for (const n of zoneNodes)
      expect(rows.some((r) => r.includes(`| fault | Node ${n} |`) && r.includes('InfraPowerOff'))).toBe(true);
    for (const n of dark) expect(rows.some((r) => r.includes('| fence-step |') && r.includes(n))).toBe(true);
    const firstFault = rows.findIndex((r) => r.includes('InfraPowerOff'));
    const firstFence = rows.findIndex((r) => r.includes('| fence-step |'));
    expect(firstFault).toBeGreaterThanOrEqual(0);
    expect(firstFault).toBeLessThan(firstFence);
    // what people did: for each dark node the cancel from the bar and the Fence now, with a name
    for (const n of dark) {
      const acts = rows.filter((r) => r.includes('| guarded-action |') && r.includes(n));
      expect(acts.length, `the cancel and the Fence now of ${n} in the export`).toBeGreaterThanOrEqual(2);
      expect(acts.every((r) => /admin/.test(r))).toBe(true);
    }
    expect(rows.findIndex((r) => r.includes('| guarded-action |'))).toBeGreaterThan(firstFault);
    expect(md).toContain('- Resolved: ');
  });

  await test.step('the timeline afterwards, and again after a restart of the console', async () => {
    await page.goto(`${url}/timeline`);
    await expect(page.getByRole('heading', { level: 1, name: /Timeline/ })).toBeVisible();
    for (const n of dark) await expect(page.getByText(n).first()).toBeVisible({ timeout: 30_000 });
    await page.screenshot({ path: resolve(paths.results, '07-timeline.png') });
    await palisade!.stop();
    palisade = await startConsole(port);
    await signIn(page, palisade.url);
    await page.goto(`${palisade.url}/timeline`);
    for (const n of dark) await expect(page.getByText(n).first()).toBeVisible({ timeout: 30_000 });
    // grouped by the incident: its window in lanes — the zone's nodes, the fences, the people
    const picker = page.getByRole('combobox', { name: 'Incident' });
    const name = await picker.locator('option').nth(1).getAttribute('value');
    expect(name).toMatch(/^inc-\d{8}-\d{6}$/);
    await picker.selectOption(name!);
    const lanes = page.getByRole('region', { name: 'Lanes' });
    for (const n of zoneNodes)
      await expect(lanes.getByTestId(`lane-nodes-${n}`)).toBeVisible({ timeout: 30_000 });
    for (const n of dark) await expect(lanes.getByTestId(`lane-fences-${n}`)).toBeVisible();
    await expect(lanes.getByTestId('lane-people-admin')).toBeVisible();
    // replay a moment of the outage: the dark node, and the database pod that ran on it then
    await page.getByRole('textbox', { name: 'Replay time' }).fill(new Date(marks.held).toISOString());
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    const tile = page.getByTestId(`replay-node-${caught.spec!.nodeName}`);
    await expect(tile.getByTestId('replay-state')).toHaveText('Unknown', { timeout: 30_000 });
    await expect(tile.getByRole('list', { name: `Pods on ${caught.spec!.nodeName}` })).toContainText(
      caught.metadata!.name!,
    );
    await page.screenshot({ path: resolve(paths.results, '08-timeline-after-restart.png') });
  });

  const fences = await Promise.all(
    dark.map(async (n) => {
      const o = await custom.getClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: FENCE_PLURAL,
        name: n,
      });
      const p = parseNodeFence(o);
      return p.ok ? p.value : undefined;
    }),
  );
  const violations = c.checker.list();
  const secs = (k: string) => Math.round((marks[k] - marks.powerOff) / 100) / 10;
  const summary = {
    zone: ZONE,
    nodes: zoneNodes,
    restored,
    fenced: dark,
    phases: fences.map((f) => f?.status.phase),
    secondsAfterPowerOff: {
      headline: secs('headline'),
      held: secs('held'),
      announced: secs('announced'),
      cancelledFromTheBar: secs('cancelled'),
      fencedByHand: secs('fencedByHand'),
      released: secs('released'),
      resolved: secs('resolved'),
    },
    placementAfterRecovery: spread,
    violations,
  };
  const text = [
    `zone-outage demo: ${ZONE} (${zoneNodes.join(', ')}) lost power; the headline named it ${summary.secondsAfterPowerOff.headline} s after; the budget (maxUnhealthy 2) held every fence`,
    `  power back on ${restored.join(', ')}; ${dark.join(', ')} announced ${summary.secondsAfterPowerOff.announced} s after the outage, cancelled from the sticky bar: sent ${Math.round((marks.sent - marks.announced) / 100) / 10} s after the bar showed them, both cancelled ${Math.round((marks.cancelled - marks.announced) / 100) / 10} s after`,
    `  fenced by hand (Fence now) ${summary.secondsAfterPowerOff.fencedByHand} s, released ${summary.secondsAfterPowerOff.released} s after the outage`,
    `  power back on the whole zone: the incident resolved ${summary.secondsAfterPowerOff.resolved} s after the outage, its export written`,
    `  timeline kept across a console restart; checker violations: ${violations.length}`,
  ].join('\n');
  console.log(text);
  await writeFile(resolve(paths.results, 'summary.txt'), `${text}\n`);
  await writeFile(resolve(paths.results, 'summary.json'), JSON.stringify(summary, null, 1));
  expect(violations).toEqual([]);
  if (process.env.PALISADE_DEMO_DOCS === '1') {
    await copyFile(
      resolve(paths.results, '03-incident-held-by-budget.png'),
      resolve(paths.docs, 'demo-zone-outage.png'),
    );
    await copyFile(
      resolve(paths.results, '04-cancel-all-from-the-bar.png'),
      resolve(paths.docs, 'demo-zone-outage-cancel-all.png'),
    );
    await copyFile(
      resolve(paths.results, '03b-fence-now-held-by-budget.png'),
      resolve(paths.docs, 'demo-zone-outage-fence-now.png'),
    );
    await copyFile(
      resolve(paths.results, '06b-incident-resolved.png'),
      resolve(paths.docs, 'demo-zone-outage-resolved.png'),
    );
    await copyFile(
      resolve(paths.results, '08-timeline-after-restart.png'),
      resolve(paths.docs, 'demo-zone-outage-timeline.png'),
    );
  }
});
