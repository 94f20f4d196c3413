// The chart's PrometheusRule checked by Prometheus's own promtool (Debian's, from
// scripts/ensure-promtool.sh): every expression parses (`promtool check rules`), and each alert
// fires on the series Palisade's metrics (and the API servers' admission metrics) produce, and
// not before (`promtool test rules` with deploy/test/alerts*.promtool.yaml) — for the default
// values and for a single replica, with the PodDisruptionBudget off or at minAvailable 0.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, render } from './helm.js';

const PROMTOOL = join(REPO, '.palisade/bin/promtool');
let dir: string;

/** value sets -> the promtool tests their rules must pass */
const CASES: Record<string, { set: string; tests: string }> = {
  defaults: { set: 'metrics.prometheusRule.enabled=true', tests: 'alerts.promtool.yaml' },
  'one replica, no PodDisruptionBudget': {
    set: 'metrics.prometheusRule.enabled=true,replicaCount=1,podDisruptionBudget.enabled=false',
    tests: 'alerts-one-replica.promtool.yaml',
  },
  'one replica, minAvailable 0': {
    set: 'metrics.prometheusRule.enabled=true,replicaCount=1,podDisruptionBudget.minAvailable=0',
    tests: 'alerts-one-replica.promtool.yaml',
  },
};

function promtool(cwd: string, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) =>
    execFile(PROMTOOL, args, { cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: stdout + stderr }),
    ),
  );
}

async function rulesOf(...args: string[]) {
  const objs = YAML.parseAllDocuments(await render(...args))
    .map((d) => d.toJS())
    .filter((d) => d);
  return objs.find((o) => o.kind === 'PrometheusRule').spec.groups as {
    rules: { alert: string; expr: string }[];
  }[];
}

beforeAll(async () => {
  if (!existsSync(PROMTOOL))
    execFileSync('bash', [join(REPO, 'scripts/ensure-promtool.sh')], { stdio: 'inherit', timeout: 300_000 });
  dir = await mkdtemp(join(tmpdir(), 'palisade-alerts-'));
  for (const [name, c] of Object.entries(CASES)) {
    const at = join(dir, name.replace(/\W+/g, '-'));
    await mkdir(at);
    await writeFile(join(at, 'rules.yaml'), YAML.stringify({ groups: await rulesOf('--set', c.set) }));
    await copyFile(join(REPO, 'deploy/test', c.tests), join(at, 'tests.yaml'));
  }
}, 300_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the PrometheusRule', () => {
  it('parses: every expression is valid PromQL', async () => {
    const r = await promtool(join(dir, 'defaults'), 'check', 'rules', 'rules.yaml');
    expect(r.out).toContain('SUCCESS: 16 rules found');
    expect(r.ok).toBe(true);
  });

  it.each(Object.keys(CASES))(
    "%s: fires each alert on Palisade's metrics as scraped, and not before its time",
    async (name) => {
      const r = await promtool(join(dir, name.replace(/\W+/g, '-')), 'test', 'rules', 'tests.yaml');
      expect(r.out).not.toContain('FAILED');
      expect(r.ok, r.out).toBe(true);
    },
    60_000,
  );

  it("PalisadeReplicasDown asks for the budget's replicas, a percentage rounded up as the PDB does", async () => {
    const threshold = async (set: string) => {
      const groups = await rulesOf('--set', `metrics.prometheusRule.enabled=true,${set}`);
      const rule = groups.flatMap((g) => g.rules).find((r) => r.alert === 'PalisadeReplicasDown')!;
      return Number(/< (\d+)$/.exec(rule.expr)?.[1]);
    };
    expect(await threshold('replicaCount=5,podDisruptionBudget.minAvailable=50%')).toBe(3);
    expect(await threshold('replicaCount=4,podDisruptionBudget.minAvailable=50%')).toBe(2);
    expect(await threshold('replicaCount=3,podDisruptionBudget.minAvailable=2')).toBe(2);
    expect(await threshold('replicaCount=3,podDisruptionBudget.enabled=false')).toBe(1);
    expect(await threshold('replicaCount=3,metrics.prometheusRule.minReplicas=3')).toBe(3);
  }, 60_000);
});
