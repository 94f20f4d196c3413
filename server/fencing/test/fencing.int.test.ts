// Fencing on the embedded cluster, end to end: a partitioned node running a StatefulSet pod with
// an RWO volume is detected, fenced (and the fence verified), released, and the replacement
// runs elsewhere with the volume — with no safety violation in the ground truth at any point.
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { CREDENTIALS_NAMESPACE, installBmcSecret, ipmiAgent } from '../../../sim/fencing/demoPolicy.js';
import { type Bmcs, missingIpmiTools, startBmcs } from '../../../sim/infra/ipmi/bmcs.js';
import { execAgent } from '../execAgent.js';
import { type Fenced, fencingScenario, pathOf, quickPolicy, startFencing } from './fencingHarness.js';

let t: Fenced | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function dbPod(f: Fenced, notOn?: string): Promise<k8s.V1Pod> {
  return eventually(
    async () => {
      const p = await f.cluster.core
        .readNamespacedPod({ name: 'db-0', namespace: 'shop' })
        .catch(() => undefined);
      const ready = p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return ready && !p?.metadata?.deletionTimestamp && p?.spec?.nodeName !== notOn ? p : undefined;
    },
    `db-0 running${notOn ? ` off ${notOn}` : ''}`,
    45_000,
  );
}

async function attachedTo(f: Fenced, node: string) {
  return eventually(
    async () => {
      const vas = await f.cluster.storage.listVolumeAttachment();
      return vas.items.find((v) => v.spec.nodeName === node && v.status?.attached);
    },
    `a volume attached to ${node}`,
    30_000,
  );
}

// generous: on the real control plane they run beside the other suites on 2 cores in npm test
describe('fencing controller', { timeout: 240_000 }, () => {
  it('power: detects, fences, verifies, releases; the replacement runs with its volume and nothing is violated', async () => {
    t = await startFencing(fencingScenario());
    await t.policy('power', quickPolicy({ type: 'power' }));
    const pod = await dbPod(t);
    const node = pod.spec!.nodeName!;
    t.cluster.infra.partition(node);

    const released = await t.fenceIn(node, ['Released'], 90_000);
    expect(pathOf(released)).toEqual(['Detected', 'Fencing', 'Fenced', 'Releasing', 'Released']);
    // a repeated step is a later release round, and says what it let go of
    const phases = released.status.steps.map((s) => s.phase);
    for (const extra of released.status.steps.filter((s, i) => i > 0 && s.phase === phases[i - 1])) {
      expect(extra.phase).toBe('Releasing');
      const named = (extra.released?.pods.length ?? 0) + (extra.released?.volumeAttachments.length ?? 0);
      expect(named, 'a repeated Releasing step names what it released').toBeGreaterThan(0);
    }
    expect(released.status.attempts).toHaveLength(1);
    expect(released.status.attempts[0]).toMatchObject({
      result: 'Succeeded',
      verification: { confirmed: true, state: 'power off' },
    });
    expect(t.cluster.infra.bmcStatus(node)).toBe('off');
    const conds = Object.fromEntries(released.status.conditions.map((c) => [c.type, c.status]));
    expect(conds).toEqual({ Processing: 'False', FenceAgentActionSucceeded: 'True', Succeeded: 'True' });

    const replacement = await dbPod(t, node);
    expect(replacement.metadata?.uid).not.toBe(pod.metadata?.uid);
    await attachedTo(t, replacement.spec!.nodeName!);
    const tainted = await t.cluster.core.readNode({ name: node });
    expect(
      tainted.spec?.taints?.some(
        (x) => x.key === 'node.kubernetes.io/out-of-service' && x.effect === 'NoExecute',
      ),
    ).toBe(true);
    expect(t.cluster.checker.list()).toEqual([]);

    // the controller writes each Event just after its phase: wait for them, not just the phase
    // (x15 at load 12: the list was read while FenceReleased was still on its way; x20 at load
    // 15+ still missed one after 20 s: a generous 60 s)
    const want = [
      'FenceDetected',
      'FenceAgentStarted',
      'FenceAgentSucceeded',
      'FenceVerified',
      'OutOfServiceTaintAdded',
      'FenceReleased',
    ];
    let seen = new Set<string | undefined>();
    await eventually(
      async () => {
        seen = new Set((await t!.nodeEvents(node)).map((e) => e.reason));
        return want.every((r) => seen.has(r));
      },
      `the fence's Events (${want.join(', ')})`,
      60_000,
    ).catch((e: Error) => {
      // say which: x31 timed out here once, without saying which Event never came
      throw new Error(
        `${e.message}; missing: ${want.filter((r) => !seen.has(r)).join(', ')}; seen: ${[...seen].join(', ')}`,
      );
    });

    // the node comes back: powered on, heartbeating (partition healed) -> taint off, Recovered
    t.cluster.infra.heal(node);
    t.cluster.infra.powerOn(node);
    const recovered = await t.fenceIn(node, ['Recovered'], 60_000);
    expect(recovered.status.recoveredAt).toBeTruthy();
    const back = await t.cluster.core.readNode({ name: node });
    expect((back.spec?.taints ?? []).some((x) => x.key === 'node.kubernetes.io/out-of-service')).toBe(false);
    expect(t.cluster.checker.list()).toEqual([]);
  });

  it('power: a node powered on again before its release ended is released no further, and recovers', async () => {
    t = await startFencing(fencingScenario());
    // resource deletion releases in rounds while anything is left on the node, and a finalizer
    // keeps db-0 there after its force delete: the release goes on
    await t.policy('power', quickPolicy({ type: 'power' }, { releaseStrategy: 'ResourceDeletion' }));
    const pod = await dbPod(t);
    const node = pod.spec!.nodeName!;
    await t.cluster.core.patchNamespacedPod(
      {
        name: 'db-0',
        namespace: 'shop',
        body: [{ op: 'add', path: '/metadata/finalizers', value: ['palisade.test/hold'] }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    t.cluster.infra.partition(node);
    await t.fenceIn(node, ['Releasing'], 90_000);

    // someone powers the node on (still cut off, so it cannot come back): the fence no longer holds
    t.cluster.infra.powerOn(node);
    const held = await eventually(
      async () => {
        const f = await t!.fence(node);
        return f?.status.steps.some((s) => s.message.startsWith('the fence no longer holds')) && f;
      },
      'the release held, said on the NodeFence',
      30_000,
    );
    const heldAt = held.status.steps.findIndex((s) => s.message.startsWith('the fence no longer holds'));
    expect(held.status.steps[heldAt].message).toMatch(/BMC reports power ON/);
    // the warning Event follows the step
    await eventually(
      async () => (await t!.nodeEvents(node)).some((e) => e.reason === 'FenceReleaseHeld'),
      'a FenceReleaseHeld Event on the node',
    );
    expect(held.status.phase).toBe('Releasing');

    // back on the network: booted again, Ready and heartbeating -> Recovered, taint off; the
    // rounds meanwhile (every second) released nothing, and said so once
    t.cluster.infra.heal(node);
    const recovered = await t.fenceIn(node, ['Recovered'], 60_000);
    expect(recovered.status.steps.slice(heldAt + 1).filter((s) => s.released)).toEqual([]);
    const said = recovered.status.steps.filter((s) => s.message.startsWith('the fence no longer holds'));
    expect(said).toHaveLength(1);
    const back = await t.cluster.core.readNode({ name: node });
    expect((back.spec?.taints ?? []).some((x) => x.key === 'node.kubernetes.io/out-of-service')).toBe(false);
    expect(t.cluster.checker.list()).toEqual([]);
  });

  it('storage: cuts the node from its volumes while its processes keep running, and restores it on recovery', async () => {
    t = await startFencing(fencingScenario());
    await t.policy('storage', quickPolicy({ type: 'storage' }));
    const pod = await dbPod(t);
    const node = pod.spec!.nodeName!;
    t.cluster.infra.partition(node);
    await t.fenceIn(node, ['Released'], 90_000);
    expect(t.cluster.infra.truth.fencedVolumes(node)).toContain('*');
    // the old process still runs on the partitioned node, but it can no longer write
    expect(t.cluster.infra.truth.running(node).map((p) => p.podName)).toContain('db-0');
    await dbPod(t, node);
    expect(t.cluster.checker.list()).toEqual([]);
    t.cluster.infra.heal(node);
    // back on the network, but its old processes may still run: storage stays cut until a reboot
    await eventually(
      async () =>
        (await t!.cluster.core.readNode({ name: node })).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      'node Ready again',
      20_000,
    );
    expect((await t.fence(node))?.status.phase).toBe('Released');
    t.cluster.infra.reset(node);
    await t.fenceIn(node, ['Recovered'], 60_000);
    expect(t.cluster.infra.truth.fencedVolumes(node)).toEqual([]);
    expect(t.cluster.checker.list()).toEqual([]);
  });

  // the real agent over real IPMI: fence_ipmilan against ipmi_sim BMCs driving the nodes' power
  const missing = missingIpmiTools();
  const ipmiSkip = missing.length > 0 && process.env.CI !== 'true';
  it.skipIf(ipmiSkip)(
    `exec: fence_ipmilan over IPMI powers the node off, and the replacement runs${ipmiSkip ? ` (skipped: ${missing.join(', ')} missing; apt-get install openipmi fence-agents ipmitool)` : ''}`,
    async () => {
      let bmcs: Bmcs | undefined;
      t = await startFencing(fencingScenario(), {
        exec: (spec) => execAgent(t!.cluster.kc, spec, { credentialsNamespaces: [CREDENTIALS_NAMESPACE] }),
      });
      try {
        bmcs = await startBmcs(t.cluster.infra, {
          infraUrl: t.cluster.infraApi.url,
          infraToken: t.cluster.infraApi.token,
        });
        await installBmcSecret(t.cluster.kc, bmcs);
        await t.policy('ipmi', quickPolicy(ipmiAgent(bmcs), { timeout: '30s' }));
        const pod = await dbPod(t);
        const node = pod.spec!.nodeName!;
        t.cluster.infra.partition(node);
        const released = await t.fenceIn(node, ['Released'], 90_000);
        // the attempt that fenced is the last; on a machine at load 15 (CI run x34) an earlier one
        // can end without power-off confirmed (its 30 s timeout), and the controller tries again
        const attempts = released.status.attempts as { result: string; output?: string }[];
        const fenced = attempts.at(-1)!;
        expect(fenced, JSON.stringify(attempts)).toMatchObject({
          result: 'Succeeded',
          verification: { confirmed: true, state: 'power off' },
        });
        expect(fenced.output).toMatch(/Success: Powered OFF/);
        for (const a of attempts) expect(a.output ?? '').not.toContain(bmcs.endpoint(node).password);
        expect(t.cluster.infra.bmcStatus(node)).toBe('off');
        await dbPod(t, node);
        expect(t.cluster.checker.list()).toEqual([]);
      } finally {
        await bmcs?.stop();
      }
    },
    120_000,
  );
});
