import { describe, expect, it } from 'vitest';
import { atRiskOf } from './atRisk';
import { fence, input, NOW, node, noFencing, pod } from './fixtures.test-helpers';
import type { FencingInput, NextAction, PreconditionCode } from './types';

const sts = { kind: 'StatefulSet', name: 'db' };
const rwo = {
  pv: 'pv-db-0',
  claim: { namespace: 'shop', name: 'data-db-0' },
  risk: 'waiting' as const,
  exclusive: true,
  attachments: [{ name: 'va-1', node: 'a', attached: true, detaching: false }],
};
const covering = (more: Partial<FencingInput> = {}): FencingInput => ({
  ...noFencing,
  enabled: true,
  covered: 'all',
  ...more,
});

describe('atRiskOf: a pod on a failed node', () => {
  const db0 = pod('db-0', 'a', { owner: sts, claims: ['data-db-0'] });
  it.each<[string, FencingInput, NextAction, string, Partial<Record<PreconditionCode, boolean>>]>([
    [
      'no policy covers the node: fence it first; force delete is not safe',
      noFencing,
      { action: 'fence-node', node: 'a', why: 'no-policy' },
      'forceDeletePod',
      { 'policy-covers-node': false, 'node-fenced': false },
    ],
    [
      'a fence announced (the warning window): wait, it says when',
      covering({ upcoming: [{ node: 'a', policy: 'p', fenceAt: NOW + 8_000, paused: false }] }),
      { action: 'wait-for-fence', node: 'a', fenceAt: NOW + 8_000, paused: false },
      // waiting is safe; the faster safe way is Fence now, never Force delete beside "wait"
      'fenceNode',
      { 'warning-window-over': false, 'node-fenced': false, 'budget-allows-fencing': true },
    ],
    [
      'the budget holds the fence: fence by hand once sure (Fence now)',
      covering({ held: [{ node: 'a', reason: 'budget', why: '2 of 4 unhealthy' }] }),
      { action: 'fence-node', node: 'a', why: 'budget' },
      'fenceNode',
      { 'budget-allows-fencing': false },
    ],
    [
      'a Manual fence waiting: approve it (the button opens the approve dialog)',
      covering({ fences: [fence('a', 'AwaitingApproval', { manual: true })] }),
      { action: 'approve-fence', node: 'a', fence: 'a' },
      'approveFence',
      { 'fence-approved': false, 'node-fenced': false },
    ],
    [
      'the fence is running: wait for it',
      covering({ fences: [fence('a', 'Fencing')] }),
      { action: 'wait-for-fence', node: 'a', fence: 'a' },
      // nothing to press while the agent runs
      undefined as unknown as string,
      { 'node-fenced': false },
    ],
    [
      'the node is fenced: the guard says force delete is safe',
      covering({ fences: [fence('a', 'Fenced')] }),
      { action: 'force-delete', pod: { namespace: 'shop', name: 'db-0' } },
      'forceDeletePod',
      { 'node-fenced': true },
    ],
    [
      'the fence failed: fence by hand (Fence now)',
      covering({ fences: [fence('a', 'Failed')] }),
      { action: 'fence-node', node: 'a', why: 'failed' },
      'fenceNode',
      { 'node-fenced': false },
    ],
  ])('%s', (_, fencing, next, guarded, pre) => {
    const { rows } = atRiskOf(
      input({
        nodes: [node('a', 'Unknown'), node('b')],
        pods: [db0, pod('w', 'b')],
        fencing,
        volumes: [rwo],
      }),
    );
    expect(rows).toHaveLength(1);
    const r = rows[0];
    expect(r.kinds).toEqual(['statefulset-identity-stuck', 'singleton-rwo-on-failed-node']);
    expect(r.volumes).toEqual(['pv-db-0']);
    expect(r.next).toEqual(next);
    expect(r.guarded?.action).toBe(guarded);
    expect(r.guard?.safe).toBe(next.action === 'force-delete');
    const got = Object.fromEntries(r.preconditions.map((p) => [p.code, p.met]));
    expect(got).toMatchObject(pre);
  });
});

describe('atRiskOf: ranking', () => {
  it('StatefulSet identities first, then RWO singletons, protectors at floor, then other pods', () => {
    const { rows, more } = atRiskOf(
      input({
        nodes: [node('a', 'Unknown'), node('b')],
        pods: [
          pod('web-1', 'a', { owner: { kind: 'ReplicaSet', name: 'web-x' } }),
          pod('solo', 'a', { claims: ['data-solo'] }),
          pod('db-0', 'a', { owner: sts }),
          pod('db-1', 'b', { owner: sts }),
        ],
        volumes: [{ ...rwo, pv: 'pv-solo', claim: { namespace: 'shop', name: 'data-solo' } }],
        protectors: [{ key: 'shop/db', minAvailable: 2, aggregated: 2, estimated: 2, dangling: false }],
      }),
    );
    expect(rows.map((r) => r.id)).toEqual([
      'pod/shop/db-0',
      'pod/shop/solo',
      'protector/shop/db',
      'pod/shop/web-1',
    ]);
    expect(rows[2].next).toEqual({ action: 'wait-for-replicas', protector: 'shop/db' });
    expect(rows[2].guarded).toBeUndefined();
    expect(more).toBe(0);
  });

  it('a StatefulSet pod stuck Terminating past its grace on a Ready-looking node', () => {
    const stuck = pod('db-2', 'b', { owner: sts, state: 'Terminating', deletionTimestamp: NOW - 5_000 });
    const { rows } = atRiskOf(input({ nodes: [node('b')], pods: [stuck, pod('db-3', 'b', { owner: sts })] }));
    expect(rows.map((r) => [r.id, r.kinds, r.pod?.terminating])).toEqual([
      ['pod/shop/db-2', ['statefulset-identity-stuck'], true],
    ]);
  });

  it('nothing on healthy nodes is at risk', () => {
    expect(atRiskOf(input({ nodes: [node('a')], pods: [pod('p', 'a', { owner: sts })] })).rows).toEqual([]);
  });
});

describe('atRiskOf: volumes whose pod is gone', () => {
  const stuck = (risk: 'stuck' | 'split-brain-risk') => ({ ...rwo, risk });
  it.each<[string, FencingInput, 'stuck' | 'split-brain-risk', NextAction, string]>([
    [
      'attached to an unfenced failed node, at split-brain risk: fence first',
      noFencing,
      'split-brain-risk',
      { action: 'fence-node', node: 'a', why: 'no-policy' },
      'volume-split-brain-risk',
    ],
    [
      'attached to a fenced node: detach is the safe next action',
      covering({ fences: [fence('a', 'Fenced')] }),
      'stuck',
      { action: 'detach', attachment: 'va-1', pv: 'pv-db-0' },
      'volume-stuck',
    ],
  ])('%s', (_, fencing, risk, next, kind) => {
    const { rows } = atRiskOf(input({ nodes: [node('a', 'Unknown')], fencing, volumes: [stuck(risk)] }));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: 'volume/pv-db-0/va-1',
      kinds: [kind],
      attachment: 'va-1',
      node: 'a',
      next,
      guarded: { action: 'detachVolume', attachment: 'va-1' },
    });
  });

  it("a volume its pod's row already names gets no row of its own", () => {
    const { rows } = atRiskOf(
      input({
        nodes: [node('a', 'Unknown')],
        pods: [pod('db-0', 'a', { owner: sts, claims: ['data-db-0'] })],
        volumes: [stuck('split-brain-risk')],
      }),
    );
    expect(rows.map((r) => r.id)).toEqual(['pod/shop/db-0']);
  });
});
