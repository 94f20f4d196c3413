// The embedded cluster installs deploy/crds/ at start: PodProtector is served with its
// schema, status subresource, short name and printer columns, as kubectl shows them.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster as ApiCluster, raw, startCluster } from '../apiserver/test/harness.js';
import { CRD_DIR, installCrds } from '../crdInstall.js';
import { type startScenario as Start, startScenario, tinyDurations } from './clusterHarness.js';

const KUBECTL = fileURLToPath(new URL('../../.palisade/bin/kubectl', import.meta.url));
const NAME = 'podprotectors.podseidon.kubewharf.io';
const base = '/apis/podseidon.kubewharf.io/v1alpha1/namespaces/default/podprotectors';

let c: Awaited<ReturnType<typeof Start>>;
let dir: string;
const api = () => ({ server: c.apiserver }) as ApiCluster;
const send = (method: string, path: string, body?: object, type = 'application/json') =>
  raw(api(), method, path, body && JSON.stringify(body), { 'content-type': type });

beforeAll(async () => {
  c = await startScenario(`
name: crds-test
${tinyDurations}
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 1 }] }]
`);
  dir = await mkdtemp(join(tmpdir(), 'palisade-crds-'));
  await writeFile(join(dir, 'kubeconfig'), c.apiserver.kubeconfig, { mode: 0o600 });
});
afterAll(async () => {
  await c?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function kubectl(...args: string[]): Promise<string> {
  return kubectlOn(join(dir, 'kubeconfig'), ...args);
}

function kubectlOn(kubeconfig: string, ...args: string[]): Promise<string> {
  if (!existsSync(KUBECTL)) throw new Error(`kubectl not found at ${KUBECTL}: run scripts/ensure-kubectl.sh`);
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  return new Promise((resolve, reject) =>
    execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
      { env, timeout: 20_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

const protector = (name: string, extra: object = {}) => ({
  apiVersion: 'podseidon.kubewharf.io/v1alpha1',
  kind: 'PodProtector',
  metadata: { name },
  spec: { minAvailable: 2, selector: { matchLabels: { app: name } } },
  ...extra,
});

/** a CRD spec with kube-apiserver's defaults (conversion strategy None), which the embedded one leaves out */
const withDefaults = (spec: object) => ({ conversion: { strategy: 'None' }, ...spec });

describe('CRDs installed at start', () => {
  it('installs every CRD of deploy/crds as written, Established, and again without error', async () => {
    expect(c.crds).toContain(NAME);
    const served = await send('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NAME}`);
    const file = YAML.parse(
      await readFile(join(CRD_DIR, 'podseidon.kubewharf.io_podprotectors.yaml'), 'utf8'),
    );
    expect(withDefaults(served.body.spec)).toEqual(withDefaults(file.spec));
    expect(served.body.status.conditions.find((x: any) => x.type === 'Established').status).toBe('True');
    await expect(installCrds(c.kc)).resolves.toContain(NAME);
  });

  it('kubectl apply -f deploy/crds/ installs them on a cluster that has none', async () => {
    const bare = await startCluster();
    try {
      const kubeconfig = join(dir, 'bare-kubeconfig');
      await writeFile(kubeconfig, bare.server.kubeconfig, { mode: 0o600 });
      const out = await kubectlOn(kubeconfig, 'apply', '-f', CRD_DIR);
      const files = (await readdir(CRD_DIR)).filter((f) => f.endsWith('.yaml')).sort();
      const crds = await Promise.all(
        files.map(async (f) => YAML.parse(await readFile(join(CRD_DIR, f), 'utf8'))),
      );
      expect(out.trim().split('\n')).toEqual(
        crds.map((c) => `customresourcedefinition.apiextensions.k8s.io/${c.metadata.name} created`),
      );
      expect(crds.map((c) => c.metadata.name)).toContain(NAME);
      // each one is served exactly as its file says (the API server adds only its defaults)
      for (const file of crds) {
        const served = await raw(
          bare,
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${file.metadata.name}`,
        );
        expect(withDefaults(served.body.spec)).toEqual(withDefaults(file.spec));
      }
    } finally {
      await bare.stop();
    }
  });

  it('serves podprotectors with discovery, the short name and a status subresource', async () => {
    const disco = await send('GET', '/apis/podseidon.kubewharf.io/v1alpha1');
    const names = disco.body.resources.map((r: any) => r.name);
    expect(names).toEqual(expect.arrayContaining(['podprotectors', 'podprotectors/status']));
    expect(disco.body.resources.find((r: any) => r.name === 'podprotectors')).toMatchObject({
      kind: 'PodProtector',
      namespaced: true,
      singularName: 'podprotector',
      shortNames: ['ppr'],
    });
  });

  it('defaults minReadySeconds, drops status on create and validates the spec', async () => {
    const made = await send('POST', base, protector('web', { status: { summary: { totalReplicas: 9 } } }));
    expect(made.code).toBe(201);
    expect(made.body.spec.minReadySeconds).toBe(0);
    expect(made.body.status).toBeUndefined();
    const bad = await send('POST', base, { ...protector('bad'), spec: { minAvailable: -1, selector: {} } });
    expect(bad.code).toBe(422);
    expect(bad.body.details.causes[0].field).toBe('spec.minAvailable');
  });

  it('writes status only through the status subresource, and accepts what Podseidon writes', async () => {
    const status = {
      cells: [
        {
          cellID: 'cell-a',
          aggregation: { totalReplicas: 3, availableReplicas: 3, lastEventTime: null },
          admissionHistory: {
            buckets: [
              { startTime: '2025-01-01T00:00:00.123456Z', podUID: 'u-1', podName: 'web-1' },
              {
                startTime: '2025-01-01T00:00:01.000000Z',
                endTime: '2025-01-01T00:00:02.000000Z',
                counter: 2,
              },
            ],
          },
        },
      ],
      summary: {
        totalReplicas: 3,
        aggregatedAvailableReplicas: 3,
        estimatedAvailableReplicas: 0,
        maxLatencyMillis: 1500,
        admissionLag: 3,
        notInSchema: true,
      },
    };
    const ignored = await send('PATCH', `${base}/web`, { status }, 'application/merge-patch+json');
    expect(ignored.code).toBe(200);
    expect(ignored.body.status).toBeUndefined();
    // an update of the status subresource, as Podseidon's UpdateStatus sends it: in a merge patch
    // null would mean "remove the field", here it is the value the schema allows
    const current = (await send('GET', `${base}/web`)).body;
    const res = await send('PUT', `${base}/web/status`, { ...current, status });
    expect(res.code).toBe(200);
    const { notInSchema: _dropped, ...summary } = status.summary;
    expect(res.body.status).toEqual({ ...status, summary });
  });

  it('kubectl get ppr prints Required, Aggregated, Estimated, Lag and Age', async () => {
    const out = await kubectl('get', 'ppr', '-n', 'default');
    const [header, row] = out.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'REQUIRED', 'AGGREGATED', 'ESTIMATED', 'LAG', 'AGE']);
    expect(row.split(/\s+/).slice(0, 5)).toEqual(['web', '2', '3', '0', '3']);
    expect(row.split(/\s+/)[5]).toMatch(/^\d+s$/);
  });
});
