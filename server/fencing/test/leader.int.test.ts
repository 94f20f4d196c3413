// Two consoles on one cluster: both watch, only the leader of the controller Lease
// (kube-system/palisade-controller) fences. The follower never touches a fence, not even one whose agent has hung in the leader;
// when the leader stops (releasing the Lease) the follower takes over at once and resumes the
// fence as after a restart: the hung attempt is Interrupted, verified, and retried with its agent.
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import type { FenceAgent } from '../agents.js';
import { type Fenced, fencingScenario, quickPolicy, startFencing, TEST_ELECTION } from './fencingHarness.js';

let t: Fenced | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** A console's agent, counting its runs: it powers the node off, or hangs without doing anything. */
function agentThat(how: 'off' | 'hang', runs: string[]) {
  const agent: FenceAgent = {
    async fence(node) {
      runs.push(node);
      if (how === 'hang') return new Promise(() => undefined);
      t!.cluster.infra.powerOff(node);
      return { result: 'Succeeded', exitCode: 0, output: 'Success: Powered OFF' };
    },
    async check(node) {
      const power = t!.cluster.infra.bmcStatus(node);
      return {
        state: `power ${power}`,
        confirmed: power === 'off',
        detail: `Status: ${power.toUpperCase()}`,
      };
    },
  };
  return () => agent;
}

const leaseOf = async (f: Fenced) =>
  f.cluster.kc
    .makeApiClient(k8s.CoordinationV1Api)
    .readNamespacedLease({ namespace: TEST_ELECTION.namespace, name: TEST_ELECTION.name });

describe('fencing leader election', { timeout: 240_000 }, () => {
  it('two consoles: only the Lease holder fences; when it stops the other takes over and resumes', async () => {
    const runsA: string[] = [];
    const runsB: string[] = [];
    t = await startFencing(fencingScenario(), { exec: agentThat('hang', runsA) });
    const a = t.elector!;
    await eventually(() => a.isLeader(), 'the first console leading', 20_000);
    const b = await t.secondConsole(agentThat('off', runsB));
    await eventually(
      () => b.elector.elector.state().holder === a.elector.identity,
      'the second console following',
      10_000,
    );
    expect(b.elector.isLeader()).toBe(false);
    expect((await leaseOf(t)).spec?.holderIdentity).toBe(a.elector.identity);

    // fence_ipmilan: an agent the policy rule knows; the test agent stands in for it
    await t.policy('exec', quickPolicy({ type: 'exec', agent: 'fence_ipmilan' }));
    const pod = await eventually(
      async () =>
        (await t!.cluster.core.listNamespacedPod({ namespace: 'shop' })).items.find(
          (p) =>
            p.spec?.nodeName && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ),
      'db-0 running',
      45_000,
    );
    const node = pod.spec!.nodeName!;
    t.cluster.infra.partition(node);
    await eventually(
      async () => (await t!.fence(node))?.status.attempts[0]?.result === 'Running',
      "the leader's attempt 1 Running",
      30_000,
    );
    // the leader's agent hangs: the follower, which sees the same Running attempt, leaves it alone
    await new Promise((r) => setTimeout(r, 2_000));
    expect(runsB).toEqual([]);
    expect((await t.fence(node))?.status.attempts.map((x) => x.result)).toEqual(['Running']);

    // the leader's console stops and releases the Lease: the follower leads within a few retries
    const transitions = (await leaseOf(t)).spec?.leaseTransitions ?? 0;
    await t.controller.stop();
    await a.stop();
    await eventually(() => b.elector.isLeader(), 'the second console leading', 10_000);
    const lease = await leaseOf(t);
    expect(lease.spec?.holderIdentity).toBe(b.elector.elector.identity);
    expect(lease.spec?.leaseTransitions).toBe(transitions + 1);
    // the epoch: the Lease's leaseTransitions when this console acquired it
    expect(b.elector.epoch()).toBe(transitions + 1);
    // it resumes: attempt 1 Interrupted and not confirmed (the hung agent did nothing), attempt 2 its own
    const done = await t.fenceIn(node, ['Released'], 90_000);
    expect(done.status.attempts.map((x) => x.result)).toEqual(['Interrupted', 'Succeeded']);
    expect(done.status.attempts[0].verification?.confirmed).toBe(false);
    expect(runsA).toEqual([node]);
    expect(runsB).toEqual([node]);
    expect(t.cluster.checker.list()).toEqual([]);
  });
});
