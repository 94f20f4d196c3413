// The fencing controller when things go wrong: approval, the budget, a controller killed in the
// middle of a fence, agents that fail, time out or claim success while the power stays on. The
// agents here are test agents behind the exec seam (the real IPMI path has its own test).
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import type { FenceAgent } from '../agents.js';
import {
  dbNode,
  type Fenced,
  fencingScenario,
  pathOf,
  quickPolicy,
  startFencing,
  TEST_ELECTION,
} from './fencingHarness.js';

let t: Fenced | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

// an agent the policy rule knows (lib/fenceAgents/policy.ts); the test agents stand in for it
const EXEC = { type: 'exec', agent: 'fence_ipmilan' };

/** A test agent: counts its runs, and powers the node off (or not) through the infrastructure. */
function testAgent(f: () => Fenced, behave: (run: number) => 'off' | 'lie' | 'fail' | 'hang' | 'slow') {
  const runs: string[] = [];
  const agent: FenceAgent = {
    async fence(node, timeoutMs) {
      runs.push(node);
      const how = behave(runs.length);
      if (how === 'fail')
        return {
          result: 'Failed',
          exitCode: 1,
          output: 'Failed: Unable to obtain correct plug status or plug is not available',
        };
      if (how === 'lie') return { result: 'Succeeded', exitCode: 0, output: 'Success: Powered OFF' };
      if (how === 'hang') return new Promise(() => undefined);
      if (how === 'slow') {
        await new Promise((r) => setTimeout(r, timeoutMs + 50));
        return { result: 'TimedOut', output: `no answer within ${timeoutMs} ms` };
      }
      f().cluster.infra.powerOff(node);
      return { result: 'Succeeded', exitCode: 0, output: 'Success: Powered OFF' };
    },
    async check(node) {
      const power = f().cluster.infra.bmcStatus(node);
      return {
        state: `power ${power}`,
        confirmed: power === 'off',
        detail: `Status: ${power.toUpperCase()}`,
      };
    },
  };
  return { runs, factory: () => agent };
}

// generous: on the real control plane they run beside the other suites on 2 cores in npm test
describe('fencing controller, when things go wrong', { timeout: 240_000 }, () => {
  it('Manual policy: waits for approval, then fences', async () => {
    t = await startFencing(fencingScenario());
    await t.policy('manual', quickPolicy({ type: 'power' }, { approval: 'Manual' }));
    const node = await dbNode(t);
    t.cluster.infra.partition(node);
    const waiting = await t.fenceIn(node, ['AwaitingApproval']);
    // well past the point an automatic policy would have fenced: nothing happened
    await new Promise((r) => setTimeout(r, 1_500));
    expect(t.cluster.infra.bmcStatus(node)).toBe('on');
    expect((await t.fence(node))?.status.attempts).toEqual([]);
    expect((await t.nodeEvents(node)).map((e) => e.reason)).toContain('FenceAwaitingApproval');
    // a person approves (what the console's guarded action writes)
    await t.patchFenceSpec(node, waiting.metadata.resourceVersion!, {
      approvedBy: 'ana',
      approvedAt: new Date().toISOString(),
    });
    const done = await t.fenceIn(node, ['Released'], 90_000);
    expect(pathOf(done)).toEqual([
      'Detected',
      'AwaitingApproval',
      'Fencing',
      'Fenced',
      'Releasing',
      'Released',
    ]);
    expect(t.cluster.checker.list()).toEqual([]);
  });

  it('a multi-node partition exceeding the budget fences nothing, not even a fence approved meanwhile', async () => {
    t = await startFencing(fencingScenario(4));
    await t.policy('budget', quickPolicy({ type: 'power' }, { minHealthy: '51%', approval: 'Manual' }));
    const first = await dbNode(t);
    const nodes = (await t.cluster.core.listNode()).items.map((n) => n.metadata!.name!);
    const others = nodes.filter((n) => n !== first).slice(0, 2);
    // one node down: within the budget, so its fence starts (and waits for a person)
    t.cluster.infra.partition(first);
    const waiting = await t.fenceIn(first, ['AwaitingApproval']);
    // then two more at once: three of four unhealthy is the control plane's side, not the nodes'
    for (const n of others) t.cluster.infra.partition(n);
    await eventually(
      async () => (await t!.nodeEvents(others[0])).some((e) => e.reason === 'FencingBlockedByBudget'),
      'the budget Event',
      20_000,
    );
    const ev = (await t.nodeEvents(others[0])).find((e) => e.reason === 'FencingBlockedByBudget');
    // the two grace periods run out a moment apart: the first held node may see two or three
    // unhealthy; on a loaded machine the fourth node's heartbeat can be late as well (0 healthy)
    expect(ev?.message).toMatch(/[0-2] of 4 nodes healthy, at least 3 \(minHealthy 51%\) required/);
    // approved meanwhile: the budget is judged again right before the agent, which does not run
    await t.patchFenceSpec(first, waiting.metadata.resourceVersion!, {
      approvedBy: 'ana',
      approvedAt: new Date().toISOString(),
    });
    await eventually(
      async () => (await t!.fence(first))?.status.message?.startsWith('fencing budget exceeded'),
      'the approved fence held by the budget',
      20_000,
    );
    // the console's Fencing page lists all three as held
    await eventually(() => t!.controller.held().length === 3, 'three held nodes', 10_000);
    expect(
      t.controller
        .held()
        .map((h) => h.node)
        .sort(),
    ).toEqual([first, ...others].sort());
    const held = await t.fence(first);
    expect(held?.status.phase).toBe('Fencing');
    expect(held?.status.attempts).toEqual([]);
    for (const n of others) expect(await t.fence(n)).toBeUndefined();
    for (const n of [first, ...others]) expect(t.cluster.infra.bmcStatus(n)).toBe('on');
  });

  it('a controller killed while its agent runs: the next one verifies instead of running the agent again', async () => {
    const agent = testAgent(
      () => t!,
      (run) => (run === 1 ? 'hang' : 'off'),
    );
    t = await startFencing(fencingScenario(), { exec: agent.factory });
    await t.policy('exec', quickPolicy(EXEC));
    const node = await dbNode(t);
    t.cluster.infra.partition(node);
    // mid-agent: attempt 1 recorded Running and its agent started (a controller stopped before
    // that point never starts it)
    await eventually(
      async () => agent.runs.length === 1 && (await t!.fence(node))?.status.attempts[0]?.result === 'Running',
      'attempt 1 Running, its agent started',
      30_000,
    );
    // the old controller dies mid-agent; the agent had in fact powered the node off. The new
    // one's first list of Nodes comes in after its NodeFences (a slow list under load): a fence
    // whose Node it has not seen yet must not read as "the Node no longer exists"
    await t.restartController(
      async () => t!.cluster.infra.powerOff(node),
      (c) => {
        const nodes = c.informers.nodes;
        const start = nodes.start.bind(nodes);
        nodes.start = () => void setTimeout(start, 1_500);
      },
    );
    const fenced = await t.fenceIn(node, ['Released'], 90_000);
    expect(agent.runs).toHaveLength(1);
    expect(fenced.status.attempts).toHaveLength(1);
    expect(fenced.status.attempts[0]).toMatchObject({
      result: 'Interrupted',
      verification: { confirmed: true },
    });
    expect(t.cluster.checker.list()).toEqual([]);
  });

  it('an agent that fails, then times out, is retried and the fence marked Failed; nothing is released', async () => {
    const agent = testAgent(
      () => t!,
      (run) => (run === 1 ? 'fail' : 'slow'),
    );
    // client-go's Lease timings: with the harness's 2 s renew deadline, a renewal slowed past it at
    // load 13 on the real control plane ended the term mid-run, and the next term recorded the
    // slow attempt Interrupted (right for a lost term, but not what this test is about)
    t = await startFencing(fencingScenario(), {
      exec: agent.factory,
      election: { ...TEST_ELECTION, leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    });
    await t.policy('exec', quickPolicy(EXEC, { timeout: '1s' }));
    const node = await dbNode(t);
    t.cluster.infra.partition(node);
    const failed = await t.fenceIn(node, ['Failed'], 90_000);
    expect(failed.status.attempts.map((a) => a.result)).toEqual(['Failed', 'TimedOut']);
    expect(failed.status.attempts[0].output).toContain('Unable to obtain correct plug status');
    const conds = Object.fromEntries(failed.status.conditions.map((c) => [c.type, [c.status, c.reason]]));
    expect(conds.FenceAgentActionSucceeded).toEqual(['False', 'FenceAgentFailed']);
    const n = await t.cluster.core.readNode({ name: node });
    expect((n.spec?.taints ?? []).some((x) => x.key === 'node.kubernetes.io/out-of-service')).toBe(false);
    // the pod stays where it is (Terminating): without a fence nobody may release it
    const pod = await t.cluster.core.readNamespacedPod({ name: 'db-0', namespace: 'shop' });
    expect(pod.spec?.nodeName).toBe(node);
  });

  it('an agent that claims success while the power stays on is not believed', async () => {
    const agent = testAgent(
      () => t!,
      () => 'lie',
    );
    t = await startFencing(fencingScenario(), { exec: agent.factory, verifyWindowMs: 500 });
    await t.policy('exec', quickPolicy(EXEC));
    const node = await dbNode(t);
    t.cluster.infra.partition(node);
    const failed = await t.fenceIn(node, ['Failed'], 90_000);
    expect(failed.status.attempts).toHaveLength(2);
    for (const a of failed.status.attempts)
      expect(a).toMatchObject({ result: 'Succeeded', verification: { confirmed: false, state: 'power on' } });
    expect(failed.status.message).toMatch(/reported success but the status query shows power on/);
    expect((await t.nodeEvents(node)).map((e) => e.reason)).toContain('FenceNotConfirmed');
    const n = await t.cluster.core.readNode({ name: node });
    expect((n.spec?.taints ?? []).some((x) => x.key === 'node.kubernetes.io/out-of-service')).toBe(false);
    expect(t.cluster.checker.list()).toEqual([]);
  });
});
