// Fence now, on the embedded cluster: a person fences a node through the guarded seam when the
// fencing budget holds its automatic fence (unsafe: the name typed and a reason), or after a
// fence they cancelled (safe: the ended NodeFence starts again, in one conditional write). The controller adopts the request
// with no warning window and runs it to Released whatever the budget says; the NodeFence and the
// audit Event name who asked and why. A Ready node is refused, whatever is typed. And a fence
// only announced (no NodeFence yet) is cancelled for its incident; the next one, announced while
// that ended NodeFence is still there, is cancelled through it; the one after that is fenced.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { ActionError } from '../../actions/errors.js';
import { perform, preview } from '../../actions/perform.js';
import { upcomingFences } from '../world.js';
import {
  adminSeam,
  dbNode,
  type Fenced,
  fencingScenario,
  quickPolicy,
  startFencing,
} from './fencingHarness.js';

let t: Fenced | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) =>
      e instanceof ActionError ? { code: e.code, message: e.message } : { code: 'other', message: String(e) },
  );

const announced = (node: string) =>
  upcomingFences(t!.controller.informers, t!.conn).some((u) => u.node === node);

/** the node Unknown for longer than the policy's 20 s, and a controller pass later */
const unfencedPast20s = (node: string) =>
  eventually(
    async () => {
      const n = await t!.cluster.core.readNode({ name: node });
      const c = n.status?.conditions?.find((x) => x.type === 'Ready');
      return c?.status === 'Unknown' && Date.now() - new Date(c.lastTransitionTime!).getTime() > 24_000;
    },
    `${node} unhealthy for longer than the policy's 20 s`,
    60_000,
  );

async function healed(node: string) {
  t!.cluster.infra.heal(node);
  await eventually(
    async () =>
      (await t!.cluster.core.readNode({ name: node })).status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ),
    `${node} Ready again`,
    60_000,
  );
}

describe('Fence now', { timeout: 300_000 }, () => {
  it('fences a node the budget holds, once a person types its name and why; the budget does not hold it', async () => {
    t = await startFencing(fencingScenario());
    await t.policy('strict', quickPolicy({ type: 'power' }, { maxUnhealthy: 0, warningWindow: '30s' }));
    const node = await dbNode(t);
    t.cluster.infra.partition(node);
    await eventually(
      () => t!.controller.held().some((h) => h.node === node && h.reason === 'budget'),
      `${node} held by the budget`,
      30_000,
    );
    expect(await t.fence(node)).toBeUndefined();
    const s = adminSeam(t);
    const p = await preview(s, { action: 'fenceNode', node });
    expect(p.verdict.safe).toBe(false);
    expect(p.refusal).toBeUndefined();
    expect(p.needs).toMatchObject({ typedName: true, reason: true, name: node });
    expect(p.verdict.safe ? [] : p.verdict.reasons).toEqual([
      expect.stringMatching(/budget exceeded: .*; the budget holds automatic fences/),
    ]);
    expect(p.will.join('\n')).toMatch(/CREATE NodeFence .* \(policy strict\)/);
    expect(p.dryRun).toMatchObject({ ran: true, ok: true });
    expect(await t.fence(node)).toBeUndefined();
    // unsafe: refused until the name is typed and a reason given
    expect(
      await refusal(perform(s, { action: 'fenceNode', node, reason: 'zone b lost power' })),
    ).toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringMatching(/type ".*" to confirm/),
    });
    const done = await perform(s, { action: 'fenceNode', node, confirm: node, reason: 'zone b lost power' });
    expect(done).toMatchObject({ recorded: true, overridden: true });
    const released = await t.fenceIn(node, ['Released'], 90_000);
    expect(released.spec.requestedBy).toMatchObject({ by: 'palisade-admin', reason: 'zone b lost power' });
    // no warning window (30 s on this policy), and the budget did not hold it
    expect(released.status.fenceAt).toBe(released.status.detectedAt);
    expect(released.status.steps[0]).toMatchObject({
      phase: 'Detected',
      message: 'fence requested by palisade-admin: zone b lost power',
    });
    expect(
      Date.parse(released.status.attempts[0].startedAt) - Date.parse(released.status.detectedAt!),
    ).toBeLessThan(15_000);
    expect(t.cluster.infra.bmcStatus(node)).toBe('off');
    const audit = await t.cluster.core.listEventForAllNamespaces({
      fieldSelector: 'reason=PalisadeFenceRequested',
    });
    expect(
      audit.items.some((e) => e.involvedObject.name === node && /palisade-admin/.test(e.message ?? '')),
    ).toBe(true);
  });

  it('after a person cancelled the fence, Fence now starts it again (safe); a Ready node is refused', async () => {
    t = await startFencing(fencingScenario());
    await t.policy('slow', quickPolicy({ type: 'power' }, { warningWindow: '60s' }));
    const node = await dbNode(t);
    const s = adminSeam(t);
    const others = (await t.cluster.core.listNode()).items
      .map((n) => n.metadata!.name!)
      .filter((n) => n !== node);
    const ready = await preview(s, { action: 'fenceNode', node: others[0] });
    expect(ready.refusal).toMatch(/is Ready: Palisade fences only a node that is not Ready/);
    expect(
      await refusal(perform(s, { action: 'fenceNode', node: others[0], confirm: others[0], reason: 'x' })),
    ).toMatchObject({ code: 'PRECONDITION_FAILED' });
    t.cluster.infra.partition(node);
    await t.fenceIn(node, ['Detected'], 30_000);
    // a fence is coming: Fence now is refused (cancel or wait instead)
    expect((await preview(s, { action: 'fenceNode', node })).refusal).toMatch(/already coming/);
    await perform(s, { action: 'cancelFence', fence: node, reason: 'checking the rack first' });
    const cancelled = await t.fenceIn(node, ['Cancelled'], 30_000);
    const p = await preview(s, { action: 'fenceNode', node });
    expect(p.verdict.safe).toBe(true);
    expect(p.verdict.notes.join('\n')).toMatch(/starts NodeFence .* \(Cancelled\) again/);
    expect(p.will.join('\n')).toMatch(/PATCH NodeFence .* conditional on its resourceVersion/);
    expect(p.dryRun).toMatchObject({ ran: true, ok: true });
    const done = await perform(s, { action: 'fenceNode', node, reason: 'the rack is dark: fence it' });
    expect(done).toMatchObject({ recorded: true, overridden: false });
    const released = await t.fenceIn(node, ['Released'], 90_000);
    // the same object, started again: a fresh run, nothing kept of the cancelled one
    expect(released.metadata.uid).toBe(cancelled.metadata.uid);
    expect(released.spec.cancelRequested).toBeFalsy();
    expect(released.status.steps[0]).toMatchObject({
      phase: 'Detected',
      message: 'fence requested by palisade-admin: the rack is dark: fence it',
    });
    expect(released.status.attempts).toHaveLength(1);
    expect(released.status.attempts[0].result).toBe('Succeeded');
  });
  it('cancels a fence announced before its NodeFence exists; the next incident is fenced as usual', async () => {
    t = await startFencing(fencingScenario());
    await t.policy(
      'patient',
      quickPolicy(
        { type: 'power' },
        { unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '20s' }] },
      ),
    );
    const node = await dbNode(t);
    const s = adminSeam(t);
    t.cluster.infra.partition(node);
    await eventually(() => announced(node), `${node} announced`, 30_000);
    expect(await t.fence(node)).toBeUndefined();
    const p = await preview(s, { action: 'cancelFence', fence: node });
    expect(p.verdict.safe).toBe(true);
    expect(p.target.kind).toBe('Node');
    expect(p.will.join('\n')).toMatch(/CREATE NodeFence .* with spec.cancelRequested/);
    const done = await perform(s, { action: 'cancelFence', fence: node, reason: 'known network work' });
    expect(done).toMatchObject({ recorded: true, overridden: false });
    const cancelled = await t.fenceIn(node, ['Cancelled'], 30_000);
    expect(cancelled.status.attempts).toEqual([]);
    expect(cancelled.status.conditions.find((c) => c.type === 'Processing')?.reason).toBe('CancelledByUser');
    // this incident stays unfenced once unhealthy past its 20 s (and a controller pass later)
    await unfencedPast20s(node);
    expect((await t.fence(node))?.metadata.uid).toBe(cancelled.metadata.uid);
    expect(announced(node)).toBe(false);

    // back, then down again: a new incident, announced while the last one's NodeFence (Cancelled)
    // is still there. Cancel writes into that one; the controller renews it for this incident
    await healed(node);
    const secondAt = Date.now();
    t.cluster.infra.partition(node);
    await eventually(() => announced(node), `${node} announced again`, 30_000);
    const again = await preview(s, { action: 'cancelFence', fence: node });
    expect(again.verdict.safe).toBe(true);
    expect(again.target).toMatchObject({ kind: 'NodeFence', uid: cancelled.metadata.uid });
    expect(again.will.join('\n')).toMatch(/PATCH NodeFence .*earlier incident.*spec\.cancelRequested/);
    await perform(s, { action: 'cancelFence', fence: node, reason: 'still the network work' });
    const renewed = await eventually(
      async () => {
        const f = await t!.fence(node);
        const fresh =
          f?.status.steps.length && f.status.steps.every((x) => Date.parse(x.at) >= secondAt - 1000);
        return f?.status.phase === 'Cancelled' && fresh ? f : undefined;
      },
      `${node}'s NodeFence renewed and Cancelled for the second incident`,
      30_000,
    );
    expect(renewed.metadata.uid).toBe(cancelled.metadata.uid);
    expect(renewed.status.steps.map((x) => x.phase)).toEqual(['Detected', 'Cancelled']);
    expect(renewed.status.attempts).toEqual([]);
    expect(renewed.status.conditions.find((c) => c.type === 'Processing')?.reason).toBe('CancelledByUser');
    await unfencedPast20s(node);
    expect((await t.fence(node))?.status.phase).toBe('Cancelled');

    // the third incident is fenced as usual: the ended NodeFence replaced by a new one
    await healed(node);
    t.cluster.infra.partition(node);
    const next = await t.fenceIn(node, ['Fencing', 'Fenced', 'Releasing', 'Released'], 90_000);
    expect(next.metadata.uid).not.toBe(cancelled.metadata.uid);
  });
});
