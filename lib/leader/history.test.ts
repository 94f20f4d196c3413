import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  epochOfAction,
  type LeaderEvent,
  type LeadershipHistory,
  leaderEventOf,
  leadershipHistory,
  type LeaseNow,
  parseLeaderMessage,
  type SeenTransition,
} from './history.js';

const LEASE = { namespace: 'kube-system', name: 'palisade-controller' };
const A = 'a_11_aaaa';
const B = 'b_22_bbbb';
const C = 'c_33_cccc';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();

let n = 0;
function ev(over: Partial<LeaderEvent> & Pick<LeaderEvent, 'reason'>): LeaderEvent {
  return {
    name: `palisade-controller.${n++}`,
    type: over.reason === 'StaleLeaderWrite' ? 'Warning' : 'Normal',
    message: '',
    source: 'palisade',
    involved: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...LEASE },
    count: 1,
    ...over,
  };
}
const elected = (holder: string, epoch: number, s: number, over: Partial<LeaderEvent> = {}) =>
  ev({
    reason: 'LeaderElection',
    message: `${holder} became leader (epoch ${epoch})`,
    reportingInstance: holder,
    firstAt: at(s),
    lastAt: at(s),
    ...over,
  });
const stale = (
  epoch: number | string | undefined,
  current: number,
  s: number,
  over: Partial<LeaderEvent> = {},
) =>
  ev({
    reason: 'StaleLeaderWrite',
    message: `refused UPDATE nodefences/status.palisade.dev a1-2: written by the leader of epoch ${epoch}, but Lease kube-system/palisade-controller is at epoch ${current} (holder X)`,
    ...(epoch === undefined ? {} : { action: typeof epoch === 'number' ? `epoch-${epoch}` : epoch }),
    firstAt: at(s),
    lastAt: at(s),
    ...over,
  });

describe('epochOfAction', () => {
  it.each<[string | undefined, number | undefined]>([
    ['epoch-0', 0],
    ['epoch-3', 3],
    ['epoch-123456789012345', 123456789012345],
    ['epoch-1234567890123456', undefined],
    ['epoch-', undefined],
    ['epoch--1', undefined],
    ['epoch-3 ', undefined],
    [' epoch-3', undefined],
    ['epoch-3x', undefined],
    ['Epoch-3', undefined],
    ['refuse', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j', (action, want) => expect(epochOfAction(action)).toBe(want));
});

describe('parseLeaderMessage', () => {
  it.each<[string | undefined, { holder: string; epoch: number } | undefined]>([
    [`${A} became leader (epoch 4)`, { holder: A, epoch: 4 }],
    ['host-1_9_ab12cd34 became leader (epoch 0)', { holder: 'host-1_9_ab12cd34', epoch: 0 }],
    [`${A} became leader (epoch 4).`, undefined],
    [`x ${A} became leader (epoch 4)`, undefined],
    [`${A} became leader (epoch four)`, undefined],
    [`${A} became leader`, undefined],
    [' became leader (epoch 4)', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j', (message, want) => expect(parseLeaderMessage(message)).toEqual(want));
});

describe('leaderEventOf', () => {
  it.each<[string, k8s.CoreV1Event, Partial<LeaderEvent>]>([
    [
      'a core/v1 Event with Date timestamps',
      {
        metadata: { name: 'palisade-controller.1' },
        involvedObject: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...LEASE },
        reason: 'StaleLeaderWrite',
        type: 'Warning',
        message: 'refused',
        action: 'epoch-3',
        source: { component: 'palisade' },
        reportingInstance: B,
        firstTimestamp: new Date(at(1)),
        lastTimestamp: new Date(at(9)),
        count: 4,
      },
      { name: 'palisade-controller.1', action: 'epoch-3', firstAt: at(1), lastAt: at(9), count: 4 },
    ],
    [
      'an events.k8s.io-style one: eventTime and a series',
      {
        metadata: { name: 'e2' },
        involvedObject: {},
        eventTime: at(2) as unknown as k8s.V1MicroTime,
        series: { count: 7, lastObservedTime: at(5) as unknown as k8s.V1MicroTime },
      },
      { firstAt: at(2), lastAt: at(5), count: 7, reason: '', message: '' },
    ],
    [
      "as Palisade's Lease Event writer sends it: a MicroTime eventTime only, action epoch-<N>",
      {
        metadata: { name: 'palisade-controller.leaderelection-x', namespace: 'kube-system' },
        involvedObject: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...LEASE },
        reason: 'LeaderElection',
        message: `${A} became leader (epoch 4)`,
        type: 'Normal',
        source: { component: 'palisade' },
        reportingComponent: 'palisade',
        reportingInstance: A,
        action: 'epoch-4',
        eventTime: '2026-01-01T12:00:05.123456Z' as unknown as k8s.V1MicroTime,
        count: 1,
      },
      {
        reason: 'LeaderElection',
        action: 'epoch-4',
        reportingInstance: A,
        source: 'palisade',
        firstAt: '2026-01-01T12:00:05.123Z',
        lastAt: '2026-01-01T12:00:05.123Z',
        count: 1,
      },
    ],
    [
      'no times but its creation, no count',
      { metadata: { name: 'e3', creationTimestamp: new Date(at(3)) }, involvedObject: {} },
      { firstAt: at(3), lastAt: at(3), count: 1 },
    ],
    [
      'a zero count still counts one, a bad time none',
      { metadata: { name: 'e4' }, involvedObject: {}, count: 0, firstTimestamp: new Date(Number.NaN) },
      { count: 1, firstAt: undefined, lastAt: undefined },
    ],
  ])('%s', (_, e, want) => {
    const got = leaderEventOf(e);
    expect(got).toMatchObject(Object.fromEntries(Object.entries(want).filter(([, v]) => v !== undefined)));
    // what it does not know is left out, not set to undefined
    for (const [k, v] of Object.entries(want)) if (v === undefined) expect(got).not.toHaveProperty(k);
  });
});

describe('leadershipHistory', () => {
  const cases: {
    name: string;
    events?: LeaderEvent[];
    now?: LeaseNow;
    seen?: SeenTransition[];
    want: Partial<LeadershipHistory>;
  }[] = [
    { name: 'nothing known', want: { terms: [], stale: [], staleTotal: 0, unreadable: [] } },
    {
      name: 'one replica on its first Lease: the Lease alone',
      now: { holder: A, transitions: 0, acquireTime: at(0) },
      seen: [{ at: at(1), holder: A, epoch: 0 }],
      want: { terms: [{ epoch: 0, holder: A, at: at(0), sources: ['lease', 'seen'] }] },
    },
    {
      name: 'Events, the Lease and this process agree: one entry per term, newest first',
      events: [elected(A, 0, 0), elected(B, 1, 30)],
      now: { holder: B, transitions: 1, acquireTime: at(29) },
      seen: [
        { at: at(1), holder: A, epoch: 0 },
        { at: at(20), holder: '', epoch: 0 },
        { at: at(31), holder: B, epoch: 1 },
      ],
      want: {
        terms: [
          { epoch: 1, holder: B, at: at(30), sources: ['event', 'lease', 'seen'] },
          { epoch: 0, holder: '', at: at(20), sources: ['seen'] },
          { epoch: 0, holder: A, at: at(0), sources: ['event', 'seen'] },
        ],
      },
    },
    {
      name: 'stale writes per epoch are named after the replica that led it',
      events: [
        elected(A, 3, 0),
        elected(B, 4, 20),
        stale(3, 4, 21, { count: 2, reportingInstance: C }),
        stale(3, 4, 25, { message: 'the latest', reportingInstance: B }),
        stale(3, 4, 22, { reportingInstance: C }),
      ],
      now: { holder: B, transitions: 4 },
      want: {
        stale: [
          {
            epoch: 3,
            holders: [A],
            count: 4,
            refusedBy: [B, C],
            firstAt: at(21),
            lastAt: at(25),
            lastMessage: 'the latest',
          },
        ],
        staleTotal: 4,
      },
    },
    {
      name: 'without a LeaderElection Event, the Lease and then this process name the holder',
      events: [stale(7, 8, 50), stale(6, 8, 40)],
      now: { holder: C, transitions: 7 },
      seen: [
        { at: at(1), holder: B, epoch: 6 },
        { at: at(2), holder: A, epoch: 7 },
      ],
      want: {
        stale: [
          expect.objectContaining({ epoch: 7, holders: [C], count: 1 }),
          expect.objectContaining({ epoch: 6, holders: [B], count: 1 }),
        ],
      },
    },
    {
      name: 'an epoch nobody is known to have led: no holder named',
      events: [stale(2, 9, 5)],
      want: { stale: [expect.objectContaining({ epoch: 2, holders: [], refusedBy: [] })] },
    },
    {
      name: 'Events that disagree on an epoch name every holder they say (never one silently)',
      events: [elected(B, 5, 1), elected(A, 5, 2), stale(5, 6, 3)],
      now: { holder: C, transitions: 5 },
      want: { stale: [expect.objectContaining({ epoch: 5, holders: [A, B] })] },
    },
    {
      name: 'a stale write without an epoch action: counted under no epoch, last, and listed as unreadable',
      events: [
        stale(undefined, 4, 1, { name: 'no-action' }),
        stale('epoch-x', 4, 2, { name: 'bad' }),
        stale(1, 4, 3),
      ],
      want: {
        stale: [
          expect.objectContaining({ epoch: 1, count: 1 }),
          expect.objectContaining({ holders: [], count: 2, lastAt: at(2) }),
        ],
        staleTotal: 3,
        unreadable: [
          {
            event: 'no-action',
            reason: 'StaleLeaderWrite',
            why: `its action is missing, not "epoch-<N>": the stale writer's epoch is unknown`,
          },
          {
            event: 'bad',
            reason: 'StaleLeaderWrite',
            why: `its action is "epoch-x", not "epoch-<N>": the stale writer's epoch is unknown`,
          },
        ],
      },
    },
    {
      name: 'a LeaderElection Event: reportingInstance and an epoch action win over the message',
      events: [
        elected(A, 2, 1, { reportingInstance: B }),
        elected(C, 3, 2, { action: 'epoch-9' }),
        elected(A, 4, 3, { reportingInstance: undefined }),
      ],
      want: {
        terms: [
          { epoch: 9, holder: C, at: at(2), sources: ['event'] },
          { epoch: 4, holder: A, at: at(3), sources: ['event'] },
          { epoch: 2, holder: B, at: at(1), sources: ['event'] },
        ],
      },
    },
    {
      name: 'a LeaderElection Event that does not read as the contract says is unreadable',
      events: [elected(A, 2, 1, { message: 'A won', reportingInstance: A, name: 'odd' })],
      want: {
        terms: [],
        unreadable: [
          {
            event: 'odd',
            reason: 'LeaderElection',
            why: 'its message does not read "<holder> became leader (epoch <N>)": "A won"',
          },
        ],
      },
    },
    {
      name: "Events about another object, another Lease or not Palisade's are ignored",
      events: [
        elected(A, 1, 1, { involved: { apiVersion: 'v1', kind: 'Node', name: LEASE.name } }),
        elected(A, 2, 1, {
          involved: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            namespace: 'kube-system',
            name: 'other',
          },
        }),
        elected(A, 3, 1, {
          involved: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            namespace: 'default',
            name: LEASE.name,
          },
        }),
        elected(A, 4, 1, { source: 'kube-controller-manager' }),
        elected(A, 5, 1, { source: undefined }),
        stale(1, 2, 1, { source: 'someone-else' }),
        ev({ reason: 'Something', message: 'else' }),
      ],
      want: { terms: [], stale: [], staleTotal: 0, unreadable: [] },
    },
    {
      name: 'the Lease released (no holder) adds no term; this process saw the release',
      now: { holder: '', transitions: 3 },
      seen: [{ at: at(4), holder: '', epoch: 3 }],
      want: { terms: [{ epoch: 3, holder: '', at: at(4), sources: ['seen'] }] },
    },
  ];
  it.each(cases)('$name', ({ events = [], now, seen, want }) =>
    expect(leadershipHistory({ lease: LEASE, events, now, seen })).toMatchObject(want),
  );
});

describe('the Events the leader side writes (lib/leader/events.ts)', () => {
  it('read back as a term and a stale write named after its leader', async () => {
    const { electedEvent, staleWriteEvent } = await import('./events.js');
    const lease = { namespace: LEASE.namespace, name: LEASE.name };
    const t = new Date('2026-11-27T04:00:00Z');
    const events = [
      electedEvent(lease, 'host_1_a', 3, t),
      electedEvent(lease, 'host_2_b', 4, t),
      staleWriteEvent(lease, {
        epoch: 3,
        what: 'UPDATE nodes n1',
        message: 'stale leader: …',
        by: 'host_2_b',
        at: t,
      }),
    ].map(leaderEventOf);
    const h = leadershipHistory({ lease: LEASE, events });
    expect(h.terms.map((x) => [x.epoch, x.holder])).toEqual(
      expect.arrayContaining([
        [3, 'host_1_a'],
        [4, 'host_2_b'],
      ]),
    );
    expect(h.stale).toMatchObject([{ epoch: 3, holders: ['host_1_a'], refusedBy: ['host_2_b'], count: 1 }]);
    expect(h.unreadable).toEqual([]);
  });
});
