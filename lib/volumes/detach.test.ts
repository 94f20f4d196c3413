import { describe, expect, it } from 'vitest';
import { type DetachInput, decideDetach, forceDetachMessage, formatGoDuration } from './detach.js';

const MIN = 60_000;
const base: DetachInput = {
  podsUsing: [],
  mountedByNode: true,
  node: { ready: 'True', outOfService: false },
  detachRequestedAtMs: 0,
  nowMs: 0,
  maxWaitForUnmountMs: 6 * MIN,
  forceDetachEnabled: true,
};
const notReady = { ready: 'Unknown' as const, outOfService: false };

describe('decideDetach', () => {
  const cases: {
    name: string;
    in: Partial<DetachInput>;
    detach: boolean;
    safe: boolean;
    kind: string;
    recheck?: number;
  }[] = [
    {
      name: 'a pod still needs it',
      in: { podsUsing: ['db/web-0'] },
      detach: false,
      safe: false,
      kind: 'in-use-by-pod',
    },
    {
      name: 'a Terminating pod on an out-of-service node still needs it',
      in: { podsUsing: ['db/web-0'], node: { ready: 'False', outOfService: true } },
      detach: false,
      safe: false,
      kind: 'in-use-by-pod',
    },
    { name: 'unmounted', in: { mountedByNode: false }, detach: true, safe: true, kind: 'unmounted' },
    { name: 'node object gone', in: { node: undefined }, detach: true, safe: true, kind: 'node-gone' },
    {
      name: 'mounted on a Ready node',
      in: {},
      detach: false,
      safe: false,
      kind: 'mounted',
      recheck: 6 * MIN,
    },
    {
      name: 'mounted, NotReady, before the timeout',
      in: { node: notReady, nowMs: 5 * MIN },
      detach: false,
      safe: false,
      kind: 'mounted',
      recheck: MIN,
    },
    {
      name: 'mounted, NotReady, timeout expired',
      in: { node: notReady, nowMs: 6 * MIN },
      detach: true,
      safe: false,
      kind: 'force-timeout',
    },
    {
      name: 'mounted, Ready, timeout expired',
      in: { nowMs: 7 * MIN },
      detach: false,
      safe: false,
      kind: 'mounted',
    },
    {
      name: 'mounted, NotReady, force detach disabled',
      in: { node: notReady, nowMs: 60 * MIN, forceDetachEnabled: false },
      detach: false,
      safe: false,
      kind: 'mounted',
    },
    {
      name: 'out-of-service taint skips the mount check',
      in: { node: { ready: 'False', outOfService: true } },
      detach: true,
      safe: true,
      kind: 'out-of-service',
    },
    {
      name: 'Ready=False counts as not Ready',
      in: { node: { ready: 'False', outOfService: false }, nowMs: 6 * MIN },
      detach: true,
      safe: false,
      kind: 'force-timeout',
    },
  ];
  it.each(cases)('$name', (c) => {
    const v = decideDetach({ ...base, ...c.in });
    expect({ detach: v.detach, safe: v.safe, kind: v.kind, recheck: v.recheckInMs }).toEqual({
      detach: c.detach,
      safe: c.safe,
      kind: c.kind,
      recheck: c.recheck,
    });
    expect(v.reason).not.toBe('');
  });
});

describe('messages', () => {
  it.each([
    [6 * MIN, '6m0s'],
    [2000, '2s'],
    [1500, '1.5s'],
    [500, '500ms'],
    [0, '0s'],
    [90 * MIN, '1h30m0s'],
  ])('formatGoDuration(%d) = %s', (ms, s) => expect(formatGoDuration(ms)).toBe(s));

  it('words the forced detach like kube-controller-manager', () => {
    expect(forceDetachMessage('pvc-1', 'kubernetes.io/csi/sim.palisade.dev^pvc-1', 'n1', 6 * MIN)).toBe(
      'attacherDetacher.DetachVolume started for volume "pvc-1" (UniqueName: "kubernetes.io/csi/sim.palisade.dev^pvc-1") on node "n1" This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching',
    );
  });
});
