// The chart's PrometheusRule checked by Prometheus's own promtool (Debian's, from
// scripts/ensure-promtool.sh): every expression parses (`promtool check rules`), and each alert
// fires on the series Palisade's metrics produce, and not before (`promtool test rules` with
// deploy/test/alerts.promtool.yaml).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, render } from './helm.js';

const PROMTOOL = join(REPO, '.palisade/bin/promtool');
let dir: string;

function promtool(...args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) =>
    execFile(PROMTOOL, args, { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: stdout + stderr }),
    ),
  );
}

beforeAll(async () => {
  if (!existsSync(PROMTOOL))
    execFileSync('bash', [join(REPO, 'scripts/ensure-promtool.sh')], { stdio: 'inherit', timeout: 300_000 });
  dir = await mkdtemp(join(tmpdir(), 'palisade-alerts-'));
  const objs = YAML.parseAllDocuments(await render('--set', 'metrics.prometheusRule.enabled=true'))
    .map((d) => d.toJS())
    .filter((d) => d);
  const rule = objs.find((o) => o.kind === 'PrometheusRule');
  await writeFile(join(dir, 'rules.yaml'), YAML.stringify({ groups: rule.spec.groups }));
  await copyFile(join(REPO, 'deploy/test/alerts.promtool.yaml'), join(dir, 'tests.yaml'));
}, 300_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the PrometheusRule', () => {
  it('parses: every expression is valid PromQL', async () => {
    const r = await promtool('check', 'rules', 'rules.yaml');
    expect(r.out).toContain('SUCCESS: 14 rules found');
    expect(r.ok).toBe(true);
  });

  it("fires each alert on Palisade's metrics as scraped, and not before its time", async () => {
    const r = await promtool('test', 'rules', 'tests.yaml');
    expect(r.out).not.toContain('FAILED');
    expect(r.ok, r.out).toBe(true);
  });
});
