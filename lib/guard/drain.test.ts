import { describe, expect, it } from 'vitest';
import {
  type DrainPod,
  drainOutcome,
  drainPlan,
  judgeCordon,
  judgeDrain,
  judgeUncordon,
  someRefs,
} from './drain';
import type { NodeFacts, Verdict } from './types';

const ready: NodeFacts = { name: 'a1-2', ready: 'True', taints: [] };
const down: NodeFacts = { name: 'a1-2', ready: 'Unknown', taints: [] };
const pod = (name: string, over: Partial<DrainPod> = {}): DrainPod => ({
  namespace: 'shop',
  name,
  uid: `u-${name}`,
  controller: 'ReplicaSet',
  mirror: false,
  terminating: false,
  emptyDir: false,
  ...over,
});

type Outcome = 'safe' | 'unsafe' | 'refused';
const outcome = (v: Verdict): Outcome => (v.safe ? 'safe' : v.overridable ? 'unsafe' : 'refused');
const text = (v: Verdict) => [...(v.safe ? [] : v.reasons), ...v.notes, ...v.warnings].join('\n');

describe('drainPlan: what kubectl drain evicts and what it leaves', () => {
  it.each<[string, DrainPod, string | undefined]>([
    ['a ReplicaSet pod is evicted', pod('web-1'), undefined],
    ['a StatefulSet pod is evicted', pod('db-0', { controller: 'StatefulSet' }), undefined],
    ['a bare pod is evicted (and judged)', pod('bare', { controller: undefined }), undefined],
    ['a DaemonSet pod stays', pod('agent', { controller: 'DaemonSet' }), 'daemonset'],
    ['a mirror pod stays', pod('etcd', { mirror: true, controller: 'Node' }), 'mirror'],
    ['a terminating pod stays', pod('old', { terminating: true }), 'terminating'],
  ])('%s', (_, p, skip) => {
    const plan = drainPlan([p]);
    expect(plan.skipped.map((s) => s.why)[0]).toBe(skip);
    expect(plan.evict.length).toBe(skip ? 0 : 1);
  });
});

describe('judgeCordon / judgeUncordon', () => {
  it.each<[string, Verdict, Outcome, RegExp]>([
    [
      'cordon a schedulable node: safe',
      judgeCordon({ node: ready, unschedulable: false }),
      'safe',
      /no new pod/,
    ],
    [
      'cordon a cordoned node: refused, nothing changes',
      judgeCordon({ node: ready, unschedulable: true }),
      'refused',
      /already cordoned/,
    ],
    [
      'uncordon a cordoned Ready node: safe',
      judgeUncordon({ node: ready, unschedulable: true }),
      'safe',
      /places pods on a1-2 again/,
    ],
    [
      'uncordon a node that is down: safe, saying its taint keeps pods away',
      judgeUncordon({ node: down, unschedulable: true }),
      'safe',
      /unreachable \(Ready=Unknown\): its not-ready or unreachable taint/,
    ],
    [
      'uncordon a schedulable node: refused',
      judgeUncordon({ node: ready, unschedulable: false }),
      'refused',
      /not cordoned/,
    ],
  ])('%s', (_, v, want, words) => {
    expect(outcome(v)).toBe(want);
    expect(text(v)).toMatch(words);
  });
});

describe('judgeDrain', () => {
  const plan = (...pods: DrainPod[]) => drainPlan(pods);
  it.each<[string, Parameters<typeof judgeDrain>[0], Outcome, RegExp]>([
    [
      'a Ready node with managed pods: safe, cordoned first',
      {
        node: ready,
        unschedulable: false,
        plan: plan(pod('web-1'), pod('db-0', { controller: 'StatefulSet' })),
      },
      'safe',
      /cordoned first[\s\S]*2 pods are evicted through the Eviction API/,
    ],
    [
      'an empty node: safe, nothing to evict',
      { node: ready, unschedulable: true, plan: plan() },
      'safe',
      /already cordoned[\s\S]*no pod to evict/,
    ],
    [
      'a bare pod: unsafe (kubectl drain wants --force)',
      { node: ready, unschedulable: false, plan: plan(pod('bare', { controller: undefined })) },
      'unsafe',
      /pod shop\/bare has no controller: evicted, it is gone for good \(kubectl drain refuses without --force\)/,
    ],
    [
      'a node that is down: unsafe, fence it instead',
      { node: down, unschedulable: false, plan: plan(pod('web-1')) },
      'unsafe',
      /only marks its pods Terminating[\s\S]*Fence the node instead/,
    ],
    [
      'emptyDir: a warning, still safe',
      { node: ready, unschedulable: false, plan: plan(pod('cache', { emptyDir: true })) },
      'safe',
      /shop\/cache uses emptyDir: its data is deleted/,
    ],
    [
      'what stays is named, with why',
      { node: ready, unschedulable: false, plan: plan(pod('agent', { controller: 'DaemonSet' })) },
      'safe',
      /shop\/agent stays: managed by a DaemonSet/,
    ],
  ])('%s', (_, input, want, words) => {
    const v = judgeDrain(input);
    expect(outcome(v)).toBe(want);
    expect(text(v)).toMatch(words);
  });
});

describe('the drain’s outcome', () => {
  it('counts what was evicted and names each refusal in the API server’s words', () => {
    expect(
      drainOutcome(
        'a1-2',
        true,
        [
          { pod: 'shop/web-1', outcome: 'evicted' },
          { pod: 'shop/web-2', outcome: 'gone' },
          {
            pod: 'shop/db-0',
            outcome: 'refused',
            message: "Cannot evict pod as it would violate the pod's disruption budget.",
          },
        ],
        false,
      ),
    ).toBe(
      "node a1-2 was cordoned; 2 of 3 pods evicted; shop/db-0 not evicted: Cannot evict pod as it would violate the pod's disruption budget.",
    );
  });
  it('says a dry run changed nothing', () => {
    expect(drainOutcome('a1-2', false, [{ pod: 'shop/web-1', outcome: 'evicted' }], true)).toBe(
      'node a1-2 was already cordoned; 1 of 1 pod would be evicted (server-side dry run: nothing changed)',
    );
  });
  it('names five pods and counts the rest', () => {
    const pods = Array.from({ length: 7 }, (_, i) => pod(`p${i}`));
    expect(someRefs(pods)).toBe('shop/p0, shop/p1, shop/p2, shop/p3, shop/p4 and 2 more');
  });
});
