// Deletion protection across a core and two worker cells, as a user runs it: three
// `npm run cluster -- --api-only --context NAME` servers merged through KUBECONFIG-style
// a:b:c and a palisade.yaml naming the core and the cells; and `npm start -- --scenario cells`,
// the embedded core + 2 workers. Processes are real (sim/cli.ts, server/main.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane } from '../sim/apiserver/test/harness.js';
import { createReadyNamespace } from './test/namespaces.js';

const children: ChildProcess[] = [];

/** Start `node --import tsx <script> ...args`; resolve with its output once `ready` matches. */
function start(script: string, args: string[], ready: RegExp): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '' },
  });
  children.push(child);
  let out = '';
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not start:\n${out}`)), 90_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        ok(out);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => fail(new Error(`${script} exited (${code}):\n${out}`)));
  });
}

afterAll(async () => {
  // the consoles first (started last), then the clusters they talk to; and no survivors
  for (const c of [...children].reverse()) {
    if (c.exitCode !== null) continue;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    const killer = setTimeout(() => c.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(killer);
  }
}, 60_000);

function kubeFor(kubeconfig: string, context: string) {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  kc.setCurrentContext(context);
  return {
    core: kc.makeApiClient(k8s.CoreV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
  };
}

const PPR = { group: 'podseidon.kubewharf.io', version: 'v1alpha1', plural: 'podprotectors' };

async function protector(custom: k8s.CustomObjectsApi, namespace: string, name: string) {
  return (await custom.getNamespacedCustomObject({ ...PPR, namespace, name })) as {
    status?: { summary?: { aggregatedAvailableReplicas?: number }; cells?: { cellID: string }[] };
  };
}

/** The API server's message and code for a refused DELETE. */
async function deleteRefusal(core: k8s.CoreV1Api, namespace: string, name: string) {
  try {
    await core.deleteNamespacedPod({ namespace, name });
    return { code: 200, message: '' };
  } catch (e) {
    const err = e as k8s.ApiException<string>;
    const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code, message: String(body?.message ?? '') };
  }
}

describe('three api-only clusters, merged kubeconfigs, palisade.yaml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'palisade-cells-'));
  const names = ['core', 'cell-a', 'cell-b'] as const;
  const file = (n: string) => join(dir, n, 'kubeconfig');
  let kube: Record<(typeof names)[number], ReturnType<typeof kubeFor>>;

  beforeAll(async () => {
    await Promise.all(
      names.map((n) =>
        start(
          'sim/cli.ts',
          [
            // on the real back end: etcd + kube-apiserver per cluster, no controller manager
            ...(onRealControlPlane ? ['--real'] : []),
            '--api-only',
            '--port',
            '0',
            '--kubeconfig',
            file(n),
            '--context',
            n,
          ],
          /kubeconfig: /,
        ),
      ),
    );
    writeFileSync(
      join(dir, 'palisade.yaml'),
      [
        'protection:',
        '  core: core',
        '  cells:',
        '    - { id: cell-a, context: cell-a }',
        '    - { id: cell-b, context: cell-b }',
        '  webhook: { port: 0, register: true }',
        '',
      ].join('\n'),
    );
    // no --context: the console connects to the current context (core) and to every context
    // palisade.yaml's protection.core and protection.cells name
    await start(
      'server/main.ts',
      ['--port', '0', '--kubeconfig', names.map(file).join(':'), '--config', join(dir, 'palisade.yaml')],
      /Palisade console: /,
    );
    kube = Object.fromEntries(names.map((n) => [n, kubeFor(file(n), n)])) as typeof kube;
  }, 120_000);

  it('counts both cells under one floor and refuses the cell-b deletion that would cross it', async () => {
    const ns = 'shop';
    for (const n of names) await createReadyNamespace(kube[n].core, ns, { apiOnly: true });
    await kube.core.custom.createNamespacedCustomObject({
      ...PPR,
      namespace: ns,
      body: {
        apiVersion: 'podseidon.kubewharf.io/v1alpha1',
        kind: 'PodProtector',
        metadata: { name: 'web' },
        spec: { minAvailable: 3, minReadySeconds: 0, selector: { matchLabels: { app: 'web' } } },
      },
    });
    // api-only clusters have no kubelets: the test plays them, two ready pods per cell
    const now = new Date();
    for (const cell of ['cell-a', 'cell-b'] as const)
      for (const i of [0, 1]) {
        const name = `web-${i}`;
        const pod = await kube[cell].core.createNamespacedPod({
          namespace: ns,
          body: {
            metadata: { name, labels: { app: 'web' } },
            spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'web' }] },
          },
        });
        await kube[cell].core.replaceNamespacedPodStatus({
          namespace: ns,
          name,
          body: {
            ...pod,
            status: {
              phase: 'Running',
              conditions: [
                { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
                { type: 'Ready', status: 'True', lastTransitionTime: now },
              ],
            },
          },
        });
      }
    await eventually(
      async () => {
        const p = await protector(kube.core.custom, ns, 'web');
        expect(p.status?.cells?.map((c) => c.cellID).sort()).toEqual(['cell-a', 'cell-b']);
        expect(p.status?.summary?.aggregatedAvailableReplicas).toBe(4);
        return true;
      },
      'both cells aggregated',
      30_000,
    );

    expect((await deleteRefusal(kube['cell-a'].core, ns, 'web-0')).code).toBe(200);
    // the first deletion spends the only spare replica: once aggregated, cell-b is at the floor
    await eventually(
      async () => {
        const p = await protector(kube.core.custom, ns, 'web');
        expect(p.status?.summary?.aggregatedAvailableReplicas).toBe(3);
        return true;
      },
      'the deletion aggregated',
      30_000,
    );
    expect(await deleteRefusal(kube['cell-b'].core, ns, 'web-1')).toEqual({
      code: 429,
      message:
        'admission webhook "podseidon.kubewharf.io" denied the request: PodProtector shop/web reports too few available replicas to admit pod deletion',
    });
    await kube['cell-b'].core.readNamespacedPod({ namespace: ns, name: 'web-1' });
  }, 90_000);
});

// sim/cells.ts starts the core and cells on embedded API servers only, and server/main.ts
// refuses `--scenario cells --real`: there is no real-control-plane variant of this scenario
describe.skipIf(onRealControlPlane)('npm start -- --scenario cells', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'palisade-cells-scenario-'));
  let url: string;
  let cookie: string;

  beforeAll(async () => {
    const out = await start(
      'server/main.ts',
      ['--port', '0', '--scenario', 'cells', '--state-dir', stateDir],
      /one-time link: (http:\/\/\S+)/,
    );
    url = out.match(/Palisade console: (http:\/\/\S+)/)![1];
    // signed in as whoever started it: the one-time link it printed
    const link = await fetch(out.match(/one-time link: (http:\/\/\S+)/)![1], { redirect: 'manual' });
    expect(link.status).toBe(302);
    cookie = (link.headers.get('set-cookie') ?? '').split(';')[0];
  }, 120_000);

  it('shows the two worker cells (with ground truth) and the core, and guards the workloads across both', async () => {
    const trpc = async (path: string) => {
      const res = await fetch(`${url}/api/trpc/${path}`, { headers: { cookie } });
      return ((await res.json()) as { result: { data: any } }).result.data;
    };
    const clusters = (await trpc('clusters.list')) as { id: string; embedded?: boolean }[];
    expect(clusters.map((c) => c.id)).toEqual(['cell-a', 'cell-b', 'core']);
    expect(clusters.map((c) => !!c.embedded)).toEqual([true, true, false]);
    await eventually(
      async () => {
        const list = await trpc('protection.list');
        expect(list.core.context).toBe('core');
        expect(list.cells.map((c: { id: string }) => c.id)).toEqual(['cell-a', 'cell-b']);
        const checkout = list.protectors.find((p: { name: string }) => p.name === 'deployment-checkout');
        // 8 replicas, 25% maxUnavailable rounded down: floor 6; 4 pods in each cell
        expect(checkout).toMatchObject({ minAvailable: 6, aggregated: 8, total: 8 });
        // cells are listed in the order the aggregators first wrote them
        expect(checkout.cells.map((c: { id: string; total: number }) => [c.id, c.total]).sort()).toEqual([
          ['cell-a', 4],
          ['cell-b', 4],
        ]);
        const db = list.protectors.find((p: { name: string }) => p.name === 'statefulset-orders-db');
        expect(db).toMatchObject({ minAvailable: 3, aggregated: 4 });
        return true;
      },
      'protectors over both cells',
      60_000,
    );
  }, 90_000);
});
