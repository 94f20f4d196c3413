// Demo flow "storm": a runaway client deletes every pod of the protected Deployment checkout
// (4 replicas, floor 3) and StatefulSet orders-db (3, floor 2) as fast as it can, on the
// embedded demo cluster, while the console shows checkout's protector. The webhook admits
// deletions only down to the floor and refuses the rest (409 full admission buffer, 429 too
// few available replicas); the monitor and the checker confirm nothing went below it.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { readTarget, sample, type Target, type Workload, whole } from './cluster.js';
import { type KubeHttp, kubeHttp } from './kube.js';
import { startMonitor } from './monitor.js';
import { demoPaths } from './paths.js';
import { runStorm, type StormResult } from './runaway.js';
import { formatReport, type Lows, outOfOrder, refusedTotal, type Sample, type StormReport } from './tally.js';

const paths = demoPaths('storm');
const STORM_MS = Number(process.env.PALISADE_STORM_SECONDS ?? 20) * 1000;
const WORKERS = 4;
const WORKLOADS: Workload[] = [
  { kind: 'Deployment', namespace: 'shop', name: 'checkout' },
  { kind: 'StatefulSet', namespace: 'shop', name: 'orders-db' },
];
const PROTECTION_INVARIANT = 'protected-workload-above-floor';

const shot = (page: Page, file: string) =>
  page.screenshot({ path: resolve(paths.results, file), fullPage: true });

async function untilWhole(kube: KubeHttp, targets: Target[], ms: number) {
  await expect(async () => expect(whole(targets, await sample(kube, targets))).toBe(true)).toPass({
    timeout: ms,
    intervals: [250],
  });
}

/** Rows of the decisions table newer than the row above (it is newest first). */
const decisionsOutOfOrder = async (page: Page) =>
  outOfOrder(
    await page
      .getByRole('table', { name: 'Recent decisions' })
      .locator('tbody tr td:first-child')
      .allTextContents(),
  );

async function checkerViolations() {
  const { url, token } = JSON.parse(await readFile(paths.infraJson, 'utf8'));
  const res = await fetch(`${url}/v1/violations`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /v1/violations: ${res.status}`);
  const body = (await res.json()) as { violations: StormReport['violations'] };
  return body.violations.map(({ invariant, subject, message }) => ({ invariant, subject, message }));
}

/** The console before the storm: both protectors healthy, then checkout's page with its chart. */
async function before(page: Page, targets: Target[]) {
  await page.goto('/protectors');
  const table = page.getByRole('table', { name: 'Protectors' });
  for (const t of targets)
    await expect(table.getByRole('row').filter({ hasText: t.protector })).toBeVisible();
  await shot(page, '01-protectors-before.png');
  await page.getByRole('link', { name: 'shop/deployment-checkout' }).click();
  await expect(page.getByRole('heading', { name: 'shop/deployment-checkout' })).toBeVisible();
  await expect(
    page.getByRole('region', { name: 'Admission history' }).getByRole('application'),
  ).toBeVisible();
  await shot(page, '02-checkout-before.png');
}

/** Checkout's page during the storm: denials in the table, the badge, the gauge at the floor. */
async function during(page: Page, checkout: Target) {
  await page.waitForTimeout(STORM_MS * 0.4);
  const decisions = page.getByRole('table', { name: 'Recent decisions' });
  await expect(decisions.getByRole('cell', { name: 'denied', exact: true }).first()).toBeVisible();
  const header = page.getByRole('heading', { name: checkout.protector }).locator('..');
  await expect(header).toContainText('Blocking');
  const floor = checkout.floor.minAvailable;
  const gauge = new RegExp(`^Availability: estimated ${floor}, .*required ${floor},`);
  await expect(page.getByRole('img', { name: gauge })).toBeVisible();
  await shot(page, '03-checkout-mid-storm.png');
  // the incident commander's view of the same moment, in a second tab: a protector at its floor
  const tabAt = Date.now();
  const incident = await page.context().newPage();
  await incident.goto('/incident');
  await expect(incident.getByTestId('incident-count-protectorsAtFloor')).toContainText(
    /^[1-9]\d* protectors? at or below (their )?floor/,
  );
  await incident.screenshot({ path: resolve(paths.results, '03b-incident-mid-storm.png'), fullPage: true });
  await incident.close();
  // the last moments of the storm: the estimated line has sat on the floor for a while
  await page.waitForTimeout(Math.max(0, STORM_MS * 0.6 - 3000 - (Date.now() - tabAt)));
  await shot(page, '04-checkout-end-of-storm.png');
  return decisionsOutOfOrder(page);
}

/** After the storm (every replica back): checkout, orders-db and the list. */
async function after(page: Page) {
  const misordered: number[] = [];
  await shot(page, '05-checkout-after.png');
  misordered.push(await decisionsOutOfOrder(page));
  await page.goto('/protectors/shop/statefulset-orders-db');
  await expect(page.getByRole('heading', { name: 'shop/statefulset-orders-db' })).toBeVisible();
  await expect(
    page.getByRole('region', { name: 'Admission history' }).getByRole('application'),
  ).toBeVisible();
  await shot(page, '06-orders-db-after.png');
  misordered.push(await decisionsOutOfOrder(page));
  await page.getByRole('link', { name: '← Protectors' }).click();
  await expect(page.getByRole('table', { name: 'Protectors' }).getByRole('row')).toHaveCount(3);
  await shot(page, '07-protectors-after.png');
  return misordered;
}

interface Evidence {
  result: StormResult;
  lows: Map<string, Lows>;
  series: Map<string, Sample[]>;
  violations: StormReport['violations'];
  browserErrors: string[];
  /** decisions-table rows out of order at the end of the storm, on checkout and orders-db after */
  uiOutOfOrder: number[];
}

/** summary.txt (also printed) and summary.json, with every poll and one message per refusal code. */
async function saveReport(targets: Target[], e: Evidence): Promise<StormReport> {
  const report: StormReport = {
    seconds: (e.result.endedAt - e.result.startedAt) / 1000,
    workers: WORKERS,
    workloads: targets.map((t) => ({
      protector: t.protector,
      minAvailable: t.floor.minAvailable,
      replicas: t.replicas,
      tally: e.result.tallies.get(t.protector)!,
      lows: e.lows.get(t.protector)!,
    })),
    violations: e.violations,
    artifacts: relative(process.cwd(), paths.results) || '.',
  };
  const text = formatReport(report);
  const json = {
    ...report,
    messages: Object.fromEntries(e.result.messages),
    browserErrors: e.browserErrors,
    uiOutOfOrder: e.uiOutOfOrder,
    series: Object.fromEntries(e.series),
  };
  await writeFile(resolve(paths.results, 'summary.txt'), text);
  await writeFile(resolve(paths.results, 'summary.json'), JSON.stringify(json, null, 1));
  process.stdout.write(text);
  return report;
}

function verdict(report: StormReport, uiOutOfOrder: number[]) {
  for (const w of report.workloads) {
    const n = (what: string) => `${w.protector}: ${what}`;
    // the webhook let the storm take the spare replicas, then stopped it
    const takenDown = Object.keys(w.tally.takenDown).length;
    expect(takenDown, n('pods taken down')).toBeGreaterThanOrEqual(w.replicas - w.minAvailable);
    expect(refusedTotal(w.tally), n('refusals')).toBeGreaterThan(0);
    expect(w.tally.errors, n('unexpected answers')).toEqual({});
    expect(w.lows.belowFloor, n('polls below the floor')).toEqual([]);
    expect(w.lows.minAvailable, n('lowest available')).toBeGreaterThanOrEqual(w.minAvailable);
    expect(w.lows.minAggregated, n('lowest aggregated')).toBeGreaterThanOrEqual(w.minAvailable);
  }
  expect(report.violations.filter((v) => v.invariant === PROTECTION_INVARIANT)).toEqual([]);
  expect(report.violations, 'no checker violation of any invariant').toEqual([]);
  expect(uiOutOfOrder, 'decisions table rows out of order (newest first)').toEqual([0, 0, 0]);
}

test('storm: a runaway client cannot push protected workloads below their floor', async ({ page }) => {
  await mkdir(paths.results, { recursive: true });
  const browserErrors: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && browserErrors.push(m.text())));
  const kube = await kubeHttp(paths.kubeconfig);
  const targets = await Promise.all(WORKLOADS.map((w) => readTarget(kube, w)));

  await test.step('before: every replica available, the console shows the protectors', async () => {
    await untilWhole(kube, targets, 60_000);
    await before(page, targets);
  });
  const monitor = startMonitor(kube, targets);
  const storm = runStorm(kube, targets, { workers: WORKERS, durationMs: STORM_MS });
  const uiOutOfOrder = [
    await test.step('storm: the console shows the webhook refusing deletions', () =>
      during(page, targets[0])),
  ];
  const result = await storm;
  await test.step('after: the controllers restore every replica', async () => {
    await untilWhole(kube, targets, 60_000);
    uiOutOfOrder.push(...(await after(page)));
  });
  const { lows, series } = await monitor.stop();
  kube.close();
  const violations = await checkerViolations();
  const report = await saveReport(targets, { result, lows, series, violations, browserErrors, uiOutOfOrder });

  await test.step('verdict: refused, never below the floor, no violation', () =>
    verdict(report, uiOutOfOrder));
  if (process.env.PALISADE_DEMO_DOCS === '1')
    await copyFile(
      resolve(paths.results, '04-checkout-end-of-storm.png'),
      resolve(paths.docs, 'demo-storm.png'),
    );
});
