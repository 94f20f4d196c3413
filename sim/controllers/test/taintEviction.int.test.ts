// NoExecute taint eviction: untolerated taints evict at once, tolerationSeconds delays the
// eviction (and never shortens it), a taint that goes away cancels it. Eviction marks
// the pod DisruptionTarget and deletes it gracefully.
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, untilNoConflict } from '../../apiserver/test/harness.js';
import { NodeLifecycleController } from '../nodeLifecycle.js';
import { TAINT_UNREACHABLE } from '../runtime/conventions.js';
import { mergePatch } from '../runtime/patches.js';
import { TaintEvictionController } from '../taintEviction.js';
import {
  type ControlPlane,
  conditionOf,
  pod,
  startControlPlane,
  untilSchedulable,
} from './controlPlaneHarness.js';

let cp: ControlPlane;
const ns = 'default';

beforeAll(async () => {
  cp = await startControlPlane([new NodeLifecycleController(), new TaintEvictionController()]);
  for (const n of ['e1', 'e2', 'e3']) await cp.kubelets.addNode(n);
  // the taint list is replaced below: let the not-ready taint of a new node come off first
  await untilSchedulable(cp, 'e1', 'e2', 'e3');
});
afterAll(() => cp?.stop());

const tolerateUnreachable = (tolerationSeconds?: number): k8s.V1Toleration => ({
  key: TAINT_UNREACHABLE,
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds,
});
const bound = (name: string, node: string, tolerations: k8s.V1Toleration[] = []) =>
  cp.c.core.createNamespacedPod({
    namespace: ns,
    body: pod(name, { spec: { nodeName: node, tolerations } }),
  });
const read = (name: string) => cp.c.core.readNamespacedPod({ name, namespace: ns });

/** When the controllers' own node informer first shows an unreachable NoExecute taint on `node`. */
function taintSeen(node: string): Promise<number> {
  return new Promise((resolve) =>
    cp.ctx.informers.nodes.on({
      update: (n) => {
        const tainted = n.spec?.taints?.some((t) => t.key === TAINT_UNREACHABLE && t.effect === 'NoExecute');
        if (n.metadata?.name === node && tainted) resolve(Date.now());
      },
    }),
  );
}

/** When the pod informer first shows `name` with a deletionTimestamp. */
function deletionSeen(name: string): Promise<number> {
  return new Promise((resolve) =>
    cp.ctx.informers.pods.on({
      update: (p) => p.metadata?.name === name && p.metadata.deletionTimestamp && resolve(Date.now()),
    }),
  );
}

async function events(name: string) {
  const list = await cp.c.core.listNamespacedEvent({
    namespace: ns,
    fieldSelector: `involvedObject.name=${name},reason=TaintManagerEviction`,
  });
  return list.items.map((e) => e.message);
}

describe('taint eviction', () => {
  it('evicts a pod that does not tolerate a NoExecute taint at once, gracefully', async () => {
    await bound('plain', 'e3');
    // conditional on what was read; the node lifecycle controller may write in between
    await untilNoConflict(async () => {
      const node = await cp.c.core.readNode({ name: 'e3' });
      const taints = [...(node.spec?.taints ?? []), { key: 'maintenance', effect: 'NoExecute' }];
      await cp.c.core.patchNode(
        {
          name: 'e3',
          body: { metadata: { resourceVersion: node.metadata?.resourceVersion }, spec: { taints } },
        },
        mergePatch,
      );
    }, 'maintenance taint on e3');
    const p = await eventually(async () => {
      const x = await read('plain');
      return x.metadata?.deletionTimestamp ? x : undefined;
    }, 'plain deleted');
    expect(p.metadata?.deletionGracePeriodSeconds).toBe(30);
    expect(conditionOf(p, 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'DeletionByTaintManager',
      message: 'Taint manager: deleting due to NoExecute taint',
    });
    expect(await events('plain')).toContain('Marking for deletion Pod default/plain');
  });

  it('evicts a pod tolerating unreachable for 2 s after 2 s, not before; unbounded tolerations stay', async () => {
    await bound('tolerates-2s', 'e1', [tolerateUnreachable(2)]);
    await bound('tolerates-forever', 'e1', [tolerateUnreachable()]);
    const tainted = taintSeen('e1');
    const deleted = deletionSeen('tolerates-2s');
    cp.kubelets.silence('e1');
    const taintedAt = await tainted;
    // a point in time well inside the toleration: nothing has happened yet
    await eventually(() => Date.now() >= taintedAt + 1_500, '1.5 s into the toleration');
    const early = await read('tolerates-2s');
    expect(early.metadata?.deletionTimestamp).toBeUndefined();
    expect(conditionOf(early, 'DisruptionTarget')).toBeUndefined();

    const deletedAt = await deleted;
    // both times are when this test's watches saw the events, each late by its own delivery lag
    // (69 ms apart on the real control plane at load 25): "not before" allows for that
    expect(deletedAt - taintedAt).toBeGreaterThanOrEqual(1_800);
    expect(deletedAt - taintedAt).toBeLessThan(3_500);
    const p = await read('tolerates-2s');
    expect(conditionOf(p, 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'DeletionByTaintManager',
    });
    // no grace override: the pod's own terminationGracePeriodSeconds applies
    expect(p.metadata?.deletionGracePeriodSeconds).toBe(30);
    expect((await read('tolerates-forever')).metadata?.deletionTimestamp).toBeUndefined();
    await cp.kubelets.revive('e1');
  });

  it('cancels a scheduled eviction when the taint goes away', async () => {
    await bound('cancelled', 'e2', [tolerateUnreachable(2)]);
    const tainted = taintSeen('e2');
    cp.kubelets.silence('e2');
    const taintedAt = await tainted;
    await cp.kubelets.revive('e2');
    await eventually(async () => {
      const n = await cp.c.core.readNode({ name: 'e2' });
      return !n.spec?.taints?.some((t) => t.key === TAINT_UNREACHABLE);
    }, 'e2 untainted');
    await eventually(() => Date.now() >= taintedAt + 3_000, 'past the toleration');
    expect((await read('cancelled')).metadata?.deletionTimestamp).toBeUndefined();
    expect(await events('cancelled')).toEqual(['Cancelling deletion of Pod default/cancelled']);
  });
});
