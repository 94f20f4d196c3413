import { describe, expect, it } from 'vitest';
import type { Phase } from '../fencing/types';
import { type ForceDeleteInput, judgeForceDelete, type PodFacts } from './forceDelete';
import {
  type FenceFacts,
  type ForceDetachFacts,
  KUBECTL_FORCE_DELETE_WARNING,
  type NodeFacts,
} from './types';

const pod = (p: Partial<PodFacts> = {}): PodFacts => ({
  namespace: 'shop',
  name: 'db-0',
  uid: 'pod-uid',
  nodeName: 'a1-2',
  owner: { kind: 'StatefulSet', name: 'db' },
  phase: 'Running',
  attachedRwo: [{ pv: 'pv-1', claim: 'data-db-0' }],
  ...p,
});
const node = (n: Partial<NodeFacts> = {}): NodeFacts => ({
  name: 'a1-2',
  uid: 'node-uid',
  ready: 'Unknown',
  taints: [],
  ...n,
});
const fence = (phase: Phase, f: Partial<FenceFacts> = {}): FenceFacts => ({
  name: 'a1-2',
  nodeName: 'a1-2',
  phase,
  nodeUid: 'node-uid',
  ...f,
});

type Row = [string, ForceDeleteInput, boolean, RegExp[]];

describe('judgeForceDelete', () => {
  it.each<Row>([
    ['unscheduled pod: safe', { pod: pod({ nodeName: undefined }) }, true, [/not scheduled/]],
    [
      'containers exited, reported from a Ready node: safe',
      { pod: pod({ phase: 'Succeeded' }), node: node({ ready: 'True' }) },
      true,
      [/exited/],
    ],
    [
      'Failed on an unreachable node: its kubelet cannot confirm it, unsafe',
      { pod: pod({ phase: 'Failed', attachedRwo: [], owner: undefined }), node: node() },
      false,
      [/unreachable \(Ready=Unknown\) and not fenced/],
    ],
    [
      'a fence of an earlier boot of the node does not count',
      {
        pod: pod({ attachedRwo: [], owner: undefined }),
        node: node({ bootId: 'boot-2' }),
        nodeFence: fence('Released', { nodeBootId: 'boot-1' }),
      },
      false,
      [/not fenced/],
    ],
    ['Node object gone: safe', { pod: pod(), node: undefined }, true, [/no longer exists/]],
    ['node Fenced: safe', { pod: pod(), node: node(), nodeFence: fence('Fenced') }, true, [/is Fenced/]],
    [
      'node Releasing: safe',
      { pod: pod(), node: node(), nodeFence: fence('Releasing') },
      true,
      [/Releasing/],
    ],
    ['node Released: safe', { pod: pod(), node: node(), nodeFence: fence('Released') }, true, [/Released/]],
    [
      'partitioned, no fence: unsafe for three reasons',
      { pod: pod(), node: node() },
      false,
      [
        /unreachable \(Ready=Unknown\) and not fenced: the pod's processes may still run/,
        /StatefulSet db: .*at-most-one/,
        /ReadWriteOnce volume pv-1 \(claim data-db-0\) is still attached to a1-2/,
      ],
    ],
    [
      'fence still Fencing: unsafe',
      { pod: pod({ attachedRwo: [] }), node: node(), nodeFence: fence('Fencing') },
      false,
      [/not fenced/, /StatefulSet/],
    ],
    [
      'fence Recovered: the node is back, unsafe',
      {
        pod: pod({ owner: undefined, attachedRwo: [] }),
        node: node({ ready: 'True' }),
        nodeFence: fence('Recovered'),
      },
      false,
      [/not fenced: the pod leaves the API at once/],
    ],
    [
      'a fence of an earlier node with the same name does not count',
      {
        pod: pod({ attachedRwo: [], owner: undefined }),
        node: node({ uid: 'new-uid' }),
        nodeFence: fence('Fenced'),
      },
      false,
      [/not fenced/],
    ],
    [
      'a fence about another node does not count',
      {
        pod: pod({ attachedRwo: [], owner: undefined }),
        node: node(),
        nodeFence: fence('Fenced', { nodeName: 'a1-3' }),
      },
      false,
      [/not fenced/],
    ],
    [
      'NotReady node, Deployment pod, no volumes: one reason',
      {
        pod: pod({ owner: { kind: 'ReplicaSet', name: 'web-1' }, attachedRwo: [] }),
        node: node({ ready: 'False' }),
      },
      false,
      [/NotReady \(Ready=False\) and not fenced/],
    ],
  ])('%s', (_what, input, expectSafe, texts) => {
    const v = judgeForceDelete(input);
    expect(v.safe).toBe(expectSafe);
    expect(v.warnings).toEqual([KUBECTL_FORCE_DELETE_WARNING]);
    const lines = v.safe ? v.notes : v.reasons;
    for (const t of texts)
      expect(
        lines.some((l) => t.test(l)),
        `${t} in ${lines.join(' / ')}`,
      ).toBe(true);
    if (!v.safe) {
      expect(v.overridable).toBe(true);
      expect(v.reasons).toHaveLength(texts.length);
    }
  });

  it("quotes kubectl's warning verbatim", () => {
    expect(KUBECTL_FORCE_DELETE_WARNING).toBe(
      'Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.',
    );
  });

  it('notes a pod already Terminating and an out-of-service taint without a fence', () => {
    const v = judgeForceDelete({
      pod: pod({ deletionTimestamp: '2026-01-01T00:00:00Z' }),
      node: node({
        taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }],
      }),
    });
    expect(v.safe).toBe(false);
    expect(v.notes.join('\n')).toMatch(/already Terminating/);
    expect(v.notes.join('\n')).toMatch(
      /out-of-service taint: someone declared it shut down, but no NodeFence/,
    );
  });

  it.each<[string, ForceDeleteInput['protectors'], RegExp | undefined]>([
    ['no protector selects the pod', [], undefined],
    [
      'a protector with room to spare says nothing',
      [{ key: 'shop/db', minAvailable: 2, available: 3 }],
      undefined,
    ],
    [
      'a protector at its floor is named, with its numbers',
      [{ key: 'shop/db', minAvailable: 2, available: 2 }],
      /^PodProtector shop\/db is at its floor \(2 available, minAvailable 2\): the workload can lose no other pod now; the deletion webhook admits this one only if the pod no longer counts as available \(the dry run asks it\)$/,
    ],
    [
      'below its floor says below',
      [{ key: 'shop/db', minAvailable: 2, available: 1 }],
      /^PodProtector shop\/db is below its floor \(1 available/,
    ],
  ])("the pod's protector: %s (issue 25, finding 7)", (_, protectors, note) => {
    for (const nodeFence of [undefined, fence('Fenced')]) {
      const v = judgeForceDelete({ pod: pod(), node: node(), nodeFence, protectors });
      const floor = v.notes.filter((n) => n.startsWith('PodProtector'));
      if (note) expect(floor).toEqual([expect.stringMatching(note)]);
      else expect(floor).toEqual([]);
    }
  });

  it('on a fenced node, says the StatefulSet replacement comes at once', () => {
    const v = judgeForceDelete({ pod: pod(), node: node(), nodeFence: fence('Fenced') });
    expect(v.notes.join('\n')).toMatch(/StatefulSet db will create the replacement at once/);
  });

  const pending = { code: 'fence-pending', node: 'a1-2', policy: 'demo', fenceAt: 1_000 } as const;
  it.each<[string, Partial<ForceDeleteInput>, string | undefined, RegExp | undefined]>([
    ['a fence is coming: the verdict says wait', { outlook: pending }, 'fence-pending', undefined],
    [
      'a fence under way: wait',
      {
        nodeFence: fence('Fencing'),
        outlook: { code: 'fence-in-progress', node: 'a1-2', fence: 'a1-2', policy: 'demo', phase: 'Fencing' },
      },
      'fence-in-progress',
      undefined,
    ],
    [
      'awaiting approval: wait (and approve)',
      { outlook: { code: 'fence-awaiting-approval', node: 'a1-2', fence: 'a1-2', policy: 'm' } },
      'fence-awaiting-approval',
      undefined,
    ],
    [
      'a paused policy: no wait, a note',
      { outlook: { code: 'fence-paused', node: 'a1-2', policy: 'demo' } },
      undefined,
      /FencePolicy demo is paused/,
    ],
    [
      'no policy: no wait, a note',
      { outlook: { code: 'no-fence-coming', node: 'a1-2', why: 'no-policy' } },
      undefined,
      /no FencePolicy covers a1-2/,
    ],
    [
      'held by the budget: no wait, a note',
      { outlook: { code: 'fence-held', node: 'a1-2', policy: 'demo', why: '3 of 6 unhealthy' } },
      undefined,
      /the fencing budget holds FencePolicy demo's fence of a1-2 \(3 of 6 unhealthy\)/,
    ],
    [
      'an outlook about another node is ignored',
      { outlook: { ...pending, node: 'b1-1' } },
      undefined,
      undefined,
    ],
  ])('%s', (_what, extra, wait, note) => {
    const v = judgeForceDelete({ pod: pod(), node: node(), ...extra });
    expect(v.safe).toBe(false);
    if (v.safe) return;
    expect(v.wait?.code).toBe(wait);
    if (note) expect(v.notes.join('\n')).toMatch(note);
  });

  it('a fenced node needs no wait, whatever the outlook', () => {
    const v = judgeForceDelete({ pod: pod(), node: node(), nodeFence: fence('Fenced'), outlook: pending });
    expect(v.safe).toBe(true);
  });

  it.each<[string, ForceDetachFacts | undefined, RegExp]>([
    [
      'the cluster says 30 s',
      { enabled: true, maxWaitMs: 30_000, source: 'cluster' },
      /force-detached after 30 s on an unreachable node: this cluster's setting/,
    ],
    [
      'nothing known: the default, assumed',
      undefined,
      /force-detached after 6 min on an unreachable node: kube-controller-manager's default, assumed/,
    ],
    [
      'disabled',
      { enabled: false, maxWaitMs: 30_000, source: 'cluster' },
      /force detach is disabled on this cluster/,
    ],
  ])('the RWO reason names the force-detach time: %s', (_what, forceDetach, text) => {
    const v = judgeForceDelete({ pod: pod(), node: node(), forceDetach });
    expect(v.safe ? [] : v.reasons.filter((r) => /ReadWriteOnce/.test(r))).toEqual([
      expect.stringMatching(text),
    ]);
  });
});
