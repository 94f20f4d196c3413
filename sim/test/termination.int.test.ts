// Seed 003's termination flow as the simulated kubelet plays it, and the
// availability-first behaviour of Deployments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { ANN_PRESTOP_MS, ANN_SIGTERM_EXIT_MS } from '../controllers/runtime/conventions.js';
import type { StepRecord } from '../infra/groundTruth.js';
import { type startScenario as Start, startScenario, tinyDurations } from './clusterHarness.js';

type Cluster = Awaited<ReturnType<typeof Start>>;
let c: Cluster;
beforeAll(async () => {
  c = await startScenario(`
name: termination-test
${tinyDurations}
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 2 }] }]
workloads:
  - kind: Deployment
    name: api
    replicas: 3
`);
});
afterAll(() => c.stop());

async function runPod(name: string, annotations: Record<string, string>, grace: number) {
  await c.core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name, annotations },
      spec: { terminationGracePeriodSeconds: grace, containers: [{ name: 'app', image: 'app:1' }] },
    },
  });
  return eventually(
    async () => {
      const p = await c.core.readNamespacedPod({ name, namespace: 'default' });
      return p.status?.phase === 'Running' ? p : undefined;
    },
    `${name} running`,
    15_000,
  );
}

async function timeline(uid: string, until: StepRecord['step']) {
  return eventually(
    () => {
      const steps = c.infra.truth.timeline(uid);
      return steps.some((s) => s.step === until) ? steps : undefined;
    },
    `timeline to reach ${until}`,
    20_000,
  );
}

const at = (steps: StepRecord[], step: StepRecord['step'], nth = 0) =>
  steps.filter((s) => s.step === step)[nth]?.at ?? Number.NaN;

describe('termination timeline', () => {
  it('preStop, then SIGTERM, then the process exits within the grace period', async () => {
    const p = await runPod('polite', { [ANN_PRESTOP_MS]: '500', [ANN_SIGTERM_EXIT_MS]: '300' }, 5);
    await c.core.deleteNamespacedPod({ name: 'polite', namespace: 'default' });
    const steps = await timeline(p.metadata!.uid!, 'removed');
    expect(steps.map((s) => s.step)).toEqual([
      'observed',
      'preStop-started',
      'preStop-finished',
      'SIGTERM',
      'exited',
      'status-reported',
      'removed',
    ]);
    expect(at(steps, 'SIGTERM') - at(steps, 'observed')).toBeGreaterThanOrEqual(450);
    expect(at(steps, 'exited') - at(steps, 'SIGTERM')).toBeLessThan(2_000);
    const proc = c.infra.truth.all().find((x) => x.podUid === p.metadata?.uid)!;
    expect(proc.exitCode).toBe(0);
  });

  it('a process that ignores SIGTERM is killed when the grace period ends', async () => {
    const p = await runPod('stubborn', { [ANN_SIGTERM_EXIT_MS]: 'never' }, 2);
    await c.core.deleteNamespacedPod({ name: 'stubborn', namespace: 'default' });
    const steps = await timeline(p.metadata!.uid!, 'removed');
    expect(steps.map((s) => s.step)).toEqual([
      'observed',
      'SIGTERM',
      'SIGKILL',
      'status-reported',
      'removed',
    ]);
    const killedAfter = at(steps, 'SIGKILL') - at(steps, 'observed');
    expect(killedAfter).toBeGreaterThanOrEqual(1_900);
    expect(killedAfter).toBeLessThan(3_500);
  });

  it('a preStop hook that overruns the grace period gets SIGTERM at the deadline and SIGKILL 2 s later', async () => {
    const p = await runPod('slow-hook', { [ANN_PRESTOP_MS]: '5000', [ANN_SIGTERM_EXIT_MS]: 'never' }, 1);
    await c.core.deleteNamespacedPod({ name: 'slow-hook', namespace: 'default' });
    const steps = await timeline(p.metadata!.uid!, 'removed');
    expect(steps.map((s) => s.step)).toEqual([
      'observed',
      'preStop-started',
      'preStop-cut-short',
      'SIGTERM',
      'SIGKILL',
      'status-reported',
      'removed',
    ]);
    expect(at(steps, 'SIGTERM') - at(steps, 'observed')).toBeGreaterThanOrEqual(950);
    expect(at(steps, 'SIGKILL') - at(steps, 'SIGTERM')).toBeGreaterThanOrEqual(1_950);
  });

  it('a kubelet that crashes during termination starts over with the full grace period', async () => {
    const p = await runPod('crashy', { [ANN_SIGTERM_EXIT_MS]: 'never' }, 3);
    const node = p.spec!.nodeName!;
    await c.core.deleteNamespacedPod({ name: 'crashy', namespace: 'default' });
    await timeline(p.metadata!.uid!, 'SIGTERM');
    c.infra.kubeletCrash(node);
    await eventually(
      () => Date.now() - at(c.infra.truth.timeline(p.metadata!.uid!), 'observed') > 1_000,
      'a second into the grace period',
    );
    c.infra.kubeletRestart(node);
    const steps = await timeline(p.metadata!.uid!, 'removed');
    const observed = steps.filter((s) => s.step === 'observed');
    expect(observed).toHaveLength(2);
    // the second run counts the whole grace period again from when it observed the pod
    expect(at(steps, 'SIGKILL') - observed[1].at).toBeGreaterThanOrEqual(2_900);
    expect(at(steps, 'SIGKILL') - observed[0].at).toBeGreaterThan(3_900);
  });
});

describe('Deployments are availability first', () => {
  it('create a replacement as soon as a pod starts terminating', async () => {
    const list = await eventually(
      async () => {
        const l = await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=api' });
        return l.items.filter((p) => p.status?.phase === 'Running').length === 3 ? l : undefined;
      },
      'three api pods running',
      20_000,
    );
    const victim = list.items[0];
    await c.core.patchNamespacedPod(
      {
        name: victim.metadata!.name!,
        namespace: 'default',
        body: { metadata: { annotations: { [ANN_SIGTERM_EXIT_MS]: 'never' } } },
      },
      (await import('../controllers/runtime/patches.js')).mergePatch,
    );
    await c.core.deleteNamespacedPod({
      name: victim.metadata!.name!,
      namespace: 'default',
      gracePeriodSeconds: 30,
    });
    const after = await eventually(
      async () => {
        const l = await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=api' });
        return l.items.length === 4 ? l : undefined;
      },
      'a fourth pod while the victim terminates',
      10_000,
    );
    const old = after.items.find((p) => p.metadata?.uid === victim.metadata?.uid)!;
    expect(old.metadata?.deletionTimestamp).toBeTruthy();
  });
});
