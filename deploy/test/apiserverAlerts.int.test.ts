// The chart's alerts on the API server's own admission metrics, against a real kube-apiserver
// (PALISADE_CLUSTER=real): a webhook named as Palisade's that nobody answers is called once
// with failurePolicy Fail (the request is refused) and once with Ignore (admitted unjudged);
// the API server's /metrics then holds the series, and promtool, fed those series exactly as
// scraped, fires PalisadeWebhookCallsFailing and PalisadeWebhookFailOpen from the chart's rules.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onRealControlPlane } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { REPO, render } from './helm.js';

const PROMTOOL = join(REPO, '.palisade/bin/promtool');
const FAIL = 'podseidon.kubewharf.io';
const OPEN = 'node-epochs.palisade.dev';

let c: Awaited<ReturnType<typeof startScenario>>;
let dir: string;

/** a configuration whose one webhook (named as Palisade's) nobody answers, for one namespace */
const unanswered = (name: string, namespace: string, failurePolicy: 'Fail' | 'Ignore') => ({
  metadata: { name: `alerts-${namespace}` },
  webhooks: [
    {
      name,
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy,
      timeoutSeconds: 2,
      clientConfig: { url: 'https://127.0.0.1:1/nobody' },
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    },
  ],
});

/** the admission webhook counters of the API server's /metrics, as a Prometheus scrape reads them */
async function scrape(): Promise<string[]> {
  const url = new URL('/metrics', c.kc.getCurrentCluster()!.server);
  const opts: https.RequestOptions = {
    method: 'GET',
    hostname: url.hostname,
    port: url.port,
    path: url.pathname,
  };
  await c.kc.applyToHTTPSOptions(opts);
  const text = await new Promise<string>((resolve, reject) =>
    https
      .request(opts, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(body));
      })
      .on('error', reject)
      .end(),
  );
  return text.split('\n').filter((l) => /^apiserver_admission_webhook_(rejection|fail_open)_count\{/.test(l));
}

beforeAll(async () => {
  if (!onRealControlPlane) return;
  c = await startScenario(`
name: apiserver-alerts
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 1 }] }]
`);
  dir = await mkdtemp(join(tmpdir(), 'palisade-apiserver-alerts-'));
}, 120_000);
afterAll(async () => {
  await c?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!onRealControlPlane)(
  "alerts on the API server's webhook metrics (real control plane)",
  () => {
    it('fire on the series kube-apiserver writes when Palisade’s webhooks cannot be called', async () => {
      const admission = c.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
      for (const [name, ns, policy] of [
        [FAIL, 'alerts-fail', 'Fail'],
        [OPEN, 'alerts-open', 'Ignore'],
      ] as const) {
        await c.core.createNamespace({ body: { metadata: { name: ns } } });
        await admission.createValidatingWebhookConfiguration({ body: unanswered(name, ns, policy) });
      }
      const configMap = (ns: string) =>
        c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: 'x-' } } });
      // refused (Fail), admitted (Ignore): the configurations may take a moment to reach the API server
      let refused: unknown;
      for (let i = 0; i < 20 && !refused; i++) {
        refused = await configMap('alerts-fail').then(
          () => undefined,
          (e) => e,
        );
        if (!refused) await new Promise((r) => setTimeout(r, 500));
      }
      const status = JSON.parse(String((refused as { body?: string })?.body ?? '{}')) as { message?: string };
      expect(status.message).toContain(`failed calling webhook "${FAIL}"`);
      const lines = await (async () => {
        for (let i = 0; i < 20; i++) {
          await configMap('alerts-open');
          const l = await scrape();
          if (l.some((x) => x.includes(OPEN))) return l;
          await new Promise((r) => setTimeout(r, 500));
        }
        return scrape();
      })();
      const failed = lines.find(
        (l) => l.includes(`name="${FAIL}"`) && l.startsWith('apiserver_admission_webhook_rejection_count'),
      );
      const open = lines.find(
        (l) => l.includes(`name="${OPEN}"`) && l.startsWith('apiserver_admission_webhook_fail_open_count'),
      );
      expect(failed, lines.join('\n')).toMatch(/error_type="calling_webhook_error"/);
      expect(open, lines.join('\n')).toBeDefined();

      // the chart's rules, fed those series as a scrape of the API servers would store them
      const objs = YAML.parseAllDocuments(await render('--set', 'metrics.prometheusRule.enabled=true'))
        .map((d) => d.toJS())
        .filter((d) => d);
      const rule = objs.find((o) => o.kind === 'PrometheusRule');
      await writeFile(join(dir, 'rules.yaml'), YAML.stringify({ groups: rule.spec.groups }));
      const series = (line: string) => line.replace(/ [^ ]+$/, '').replace('{', '{job="apiserver",');
      const rules = rule.spec.groups.flatMap((g: { rules: unknown[] }) => g.rules) as {
        alert?: string;
        labels: Record<string, string>;
        annotations: Record<string, string>;
      }[];
      /** the alert as the rule writes it for webhook `name` (its annotations' templates filled in) */
      const expected = (alertname: string, name: string) => {
        const r = rules.find((x) => x.alert === alertname)!;
        const fill = (t: string) => t.replaceAll('{{ $labels.name }}', name);
        return {
          exp_labels: { ...r.labels, name },
          exp_annotations: Object.fromEntries(Object.entries(r.annotations).map(([k, v]) => [k, fill(v)])),
        };
      };
      const tests = {
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: [
              { series: series(failed!), values: '0x3 0+5x20' },
              { series: series(open!), values: '0x3 0+5x20' },
            ],
            alert_rule_test: [
              {
                eval_time: '10m',
                alertname: 'PalisadeWebhookCallsFailing',
                exp_alerts: [expected('PalisadeWebhookCallsFailing', FAIL)],
              },
              {
                eval_time: '10m',
                alertname: 'PalisadeWebhookFailOpen',
                exp_alerts: [expected('PalisadeWebhookFailOpen', OPEN)],
              },
            ],
          },
        ],
      };
      await writeFile(join(dir, 'tests.yaml'), YAML.stringify(tests));
      const r = await new Promise<{ ok: boolean; out: string }>((resolve) =>
        execFile(PROMTOOL, ['test', 'rules', 'tests.yaml'], { cwd: dir, timeout: 60_000 }, (e, so, se) =>
          resolve({ ok: !e, out: so + se }),
        ),
      );
      expect(r.ok, `${r.out}\nseries:\n${series(failed!)}\n${series(open!)}`).toBe(true);
    }, 120_000);
  },
);
