// A console whose term ends between recording an attempt (Running, before the agent) and starting
// its agent must not start it: the next leader finds the attempt Running, marks it Interrupted,
// verifies, and runs the next attempt itself — one agent action, not one from each leader (a late
// "reboot" from the old leader would power-cycle a node the new one already released).
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import type { FenceAgent } from '../agents.js';
import { type Fenced, fencingScenario, quickPolicy, startFencing } from './fencingHarness.js';

let t: Fenced | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** A console's agent that powers the node off, counting its runs. */
function agentThat(runs: string[]) {
  const agent: FenceAgent = {
    async fence(node) {
      runs.push(node);
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

describe('fencing: a term that ends before the agent starts', { timeout: 240_000 }, () => {
  it('the old leader never starts the agent; the new leader verifies and runs the next attempt', async () => {
    const runsA: string[] = [];
    const runsB: string[] = [];
    t = await startFencing(fencingScenario(), { exec: agentThat(runsA) });
    const a = t.elector;
    await eventually(() => a.isLeader(), 'the first console leading', 20_000);
    const b = await t.secondConsole(agentThat(runsB));
    // the first console's term ends once it has recorded attempt 1 Running, while its
    // FenceAgentStarted Event is on the wire (the line is logged as the request goes out; the
    // term ends on the next turn of the event loop, before the answer): as when its Lease is
    // lost at that moment
    const lines = t.logs.lines;
    const push = lines.push.bind(lines);
    let ended = false;
    lines.push = (...l: string[]) => {
      if (!ended && l.some((x) => x.includes('"reason":"FenceAgentStarted"'))) {
        ended = true;
        setImmediate(() => void a.stop());
      }
      return push(...l);
    };

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

    await eventually(() => b.elector.isLeader(), 'the second console leading', 30_000);
    const done = await t.fenceIn(node, ['Released'], 90_000);
    expect(ended).toBe(true);
    expect(
      t.logs.of(
        'fencing',
        'term ended before the agent started: not started; the next leader verifies this attempt',
      ),
    ).toHaveLength(1);
    expect(done.status.attempts.map((x) => x.result)).toEqual(['Interrupted', 'Succeeded']);
    expect(done.status.attempts[0].verification?.confirmed).toBe(false);
    expect(runsA).toEqual([]);
    expect(runsB).toEqual([node]);
    expect(t.cluster.checker.list()).toEqual([]);
  });
});
