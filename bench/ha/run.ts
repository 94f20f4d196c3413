// `npm run bench:ha`: what high availability costs and how fast it acts, in one run on the
// embedded cluster:
// - the epoch check: a PodProtector update through Palisade's palisade-leader-epochs webhook,
//   carrying no epoch (people, kubectl: answered without a Lease read), carrying the leader's
//   epoch (the Lease read live), and with the webhook not registered at all;
// - the takeover: three replicas (server/main.ts processes) with the default election (15 s /
//   10 s / 2 s); the leader is SIGKILLed twice, each time timed until another holds the Lease.
// Figures and ratios go to bench/ha/RESULTS.md, folded into bench/RESULTS.md.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { startProtectionOn } from '../../server/protection/test/standalone.js';
import { baseConfig, createProtector, scenario } from '../../server/protection/test/protectionHarness.js';
import { ControllerRuntime } from '../../server/runtime/runtime.js';
import { startReplicas } from '../../server/test/replicas.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { benchResults, fmt, type Row } from '../report.js';

const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const quick = process.argv.includes('--quick');
const N = quick ? 100 : 500;
const KILLS = 2;
const LEASE = { namespace: 'kube-system', name: 'palisade-controller' };
const log = (m: string) => console.log(`[bench:ha] ${m}`);

interface Timing {
  n: number;
  p50: number;
  p99: number;
}

async function timed(n: number, one: (i: number) => Promise<unknown>): Promise<Timing> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await one(i);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { n, p50: ms[Math.floor(n * 0.5)], p99: ms[Math.floor(n * 0.99)] };
}

const row = (metric: string, t: Timing, note: string, target?: Row['target']): Row => ({
  section: 'epoch check',
  metric,
  value: t.p50,
  unit: 'ms p50',
  target,
  note: `${t.n} sequential updates, p99 ${fmt(t.p99)} ms; ${note}`,
});

/** The epoch check's price on one write, with the console leading in this process. */
async function epochCheck(rows: Row[]) {
  const cluster = await startScenario(scenario('bench-ha'));
  const runtime = new ControllerRuntime({ identity: 'bench-ha' });
  const spec = { id: 'embedded', context: 'palisade-embedded', kc: cluster.kc };
  const protection = await startProtectionOn(runtime, {
    config: baseConfig({ webhook: { port: 0, host: '127.0.0.1', register: true } }),
    clusters: [spec],
  });
  try {
    const custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    const P = {
      group: 'podseidon.kubewharf.io',
      version: 'v1alpha1',
      plural: 'podprotectors',
      namespace: 'default',
    };
    await createProtector(custom, 'default', 'bench', { minAvailable: 1, selector: { app: 'none' } });
    while (runtime.get('embedded')?.epoch() === undefined) await new Promise((r) => setTimeout(r, 100));
    const epoch = runtime.get('embedded')!.epoch()!;
    const update = (i: number, fieldManager?: string) =>
      custom.patchNamespacedCustomObject(
        {
          ...P,
          name: 'bench',
          body: { metadata: { annotations: { 'bench.palisade.dev/i': String(i) } } },
          fieldManager,
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    log('warm-up');
    await timed(50, (i) => update(i, `palisade-leader-e${epoch}`));
    const plain = await timed(N, (i) => update(i));
    const leader = await timed(N, (i) => update(i, `palisade-leader-e${epoch}`));
    await cluster.kc
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .deleteValidatingWebhookConfiguration({ name: 'palisade-leader-epochs' });
    const none = await timed(N, (i) => update(i, `palisade-leader-e${epoch}`));
    rows.push(row('update, no epoch webhook registered', none, 'the baseline'));
    rows.push(row('update carrying no epoch (a person, kubectl)', plain, 'webhook called, no Lease read'));
    rows.push(
      row('update carrying the leader epoch', leader, 'webhook called, the Lease read live', {
        op: '<=',
        value: 20,
      }),
    );
    rows.push({
      section: 'ratios',
      metric: 'leader write / no webhook',
      value: leader.p50 / none.p50,
      unit: 'x',
      note: 'p50: the price of fencing a leader write at admission',
    });
  } finally {
    await protection.stop();
    await runtime.stop();
    await cluster.stop();
  }
}

/** SIGKILL of the leader among three replicas: time until another holds the Lease. */
async function takeover(rows: Row[]) {
  const cluster = await startScenario(scenario('bench-ha-takeover'));
  const dir = await mkdtemp(join(tmpdir(), 'palisade-bench-ha-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kc.exportConfig());
  const set = await startReplicas({ kubeconfig, n: 3 });
  const leases = cluster.kc.makeApiClient(k8s.CoordinationV1Api);
  const holder = async () => (await leases.readNamespacedLease(LEASE).catch(() => undefined))?.spec;
  try {
    for (let k = 0; k < KILLS; k++) {
      let before = await holder();
      while (!before?.holderIdentity || !set.byIdentity(before.holderIdentity)) {
        await new Promise((r) => setTimeout(r, 100));
        before = await holder();
      }
      const victim = set.byIdentity(before.holderIdentity)!;
      log(`killing the leader (replica ${victim.index}, epoch ${before.leaseTransitions})`);
      const t0 = performance.now();
      victim.signal('SIGKILL');
      let after = await holder();
      while (!after?.holderIdentity || after.holderIdentity === before.holderIdentity) {
        await new Promise((r) => setTimeout(r, 100));
        after = await holder();
      }
      const s = (performance.now() - t0) / 1000;
      rows.push({
        section: 'takeover',
        metric: `SIGKILL ${k + 1}: another replica holds the Lease`,
        value: s,
        unit: 's',
        target: { op: '<=', value: 20 },
        note: `epoch ${before.leaseTransitions} -> ${after.leaseTransitions}; lease 15 s, retry 2 s`,
      });
    }
  } finally {
    await set.stop();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const started = Date.now();
  const rows: Row[] = [];
  log('the epoch check');
  await epochCheck(rows);
  log('takeover after SIGKILL');
  await takeover(rows);
  const text = benchResults({
    title: 'High-availability benchmark',
    command: `npm run bench:ha${quick ? ' -- --quick' : ''}`,
    durationS: (Date.now() - started) / 1000,
    setup: [
      "The epoch check: one process holds the embedded cluster (3 nodes) and protection with its webhooks registered, leading the controller Lease; merge patches of one PodProtector, one at a time, through Palisade's `palisade-leader-epochs` webhook (the `protector-epochs` hook). Then the configuration is deleted and the same patches are timed without it.",
      'The takeover: three `server/main.ts` processes behind haproxy with the default election (lease 15 s, renew deadline 10 s, retry 2 s); the leader is SIGKILLed (it releases nothing), timed until the Lease names another holder, polled every 100 ms.',
    ],
    rows,
  });
  await writeFile(RESULTS, `${text}\n`);
  console.log(text);
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
