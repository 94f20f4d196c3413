import { describe, expect, it } from 'vitest';
import {
  type AnnouncedFenceRow,
  announcedFences,
  announcedText,
  secondsLeft,
  summarize,
  type UpcomingRow,
} from './announced';

const T0 = Date.parse('2026-11-30T04:54:00Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

const fence = (node: string, o: Partial<AnnouncedFenceRow> & { at?: number } = {}): AnnouncedFenceRow => ({
  name: node,
  node,
  policy: 'zones',
  fenceAt: o.at === undefined ? undefined : iso(o.at),
  paused: false,
  status: { phase: 'Detected' },
  spec: {},
  ...o,
});
const up = (node: string, at: number, o: Partial<UpcomingRow> = {}): UpcomingRow => ({
  node,
  policy: 'zones',
  fenceAt: iso(at),
  paused: false,
  ...o,
});

describe('announcedFences', () => {
  const cases: { name: string; fences: AnnouncedFenceRow[]; upcoming: UpcomingRow[]; want: string[] }[] = [
    { name: 'nothing announced', fences: [], upcoming: [], want: [] },
    {
      name: 'a Detected fence in its window',
      fences: [fence('a1-1', { at: 8 })],
      upcoming: [],
      want: ['a1-1'],
    },
    {
      name: 'past Detected, cancelled, or awaiting approval: not announced',
      fences: [
        fence('a1-1', { status: { phase: 'Fencing' } }),
        fence('a1-2', { at: 5, spec: { cancelRequested: { by: 'ann' } } }),
        fence('a1-3', { status: { phase: 'AwaitingApproval' } }),
        fence('a1-4', { status: { phase: 'Cancelled' } }),
      ],
      upcoming: [],
      want: [],
    },
    {
      name: 'soonest first, held last',
      fences: [fence('b1-1', { at: 9 }), fence('a1-1', { at: 9, paused: true })],
      upcoming: [up('c1-1', 3)],
      want: ['c1-1', 'b1-1', 'a1-1'],
    },
    {
      name: "an upcoming fence is the node's next incident: it replaces the old fence",
      fences: [fence('a1-1', { at: 1 })],
      upcoming: [up('a1-1', 30)],
      want: ['a1-1@30'],
    },
  ];
  it.each(cases)('$name', ({ fences, upcoming, want }) => {
    const got = announcedFences(fences, upcoming).map((a) =>
      want.some((w) => w.includes('@')) ? `${a.node}@${((a.fenceAt ?? 0) - T0) / 1000}` : a.node,
    );
    expect(got).toEqual(want);
  });

  it('names the NodeFence to cancel, or the node for an upcoming fence', () => {
    const got = announcedFences([fence('a1-1', { name: 'a1-1-x', at: 4 })], [up('b1-1', 6)]);
    expect(got.map((a) => a.fence)).toEqual(['a1-1-x', 'b1-1']);
  });
});

describe('the bar', () => {
  const cases: {
    name: string;
    fences: AnnouncedFenceRow[];
    upcoming: UpcomingRow[];
    now: number;
    want: string;
  }[] = [
    { name: 'one fence', fences: [fence('a1-1', { at: 8 })], upcoming: [], now: 0, want: '1 fence in 8 s' },
    {
      name: 'rounds up: never "in 0 s" while it waits',
      fences: [fence('a1-1', { at: 8 })],
      upcoming: [],
      now: 7.2,
      want: '1 fence in 1 s',
    },
    { name: 'due', fences: [fence('a1-1', { at: 8 })], upcoming: [], now: 9, want: '1 fence due now' },
    {
      name: 'three, named the next',
      fences: [fence('a1-1', { at: 10 }), fence('a1-2', { at: 10 })],
      upcoming: [up('a1-3', 8)],
      now: 0,
      want: '3 fences in 8 s (next: a1-3)',
    },
    {
      name: 'held by a paused policy',
      fences: [fence('a1-1', { at: 10, paused: true }), fence('a1-2', { at: 10, paused: true })],
      upcoming: [],
      now: 0,
      want: '2 fences held: policy zones is paused',
    },
    {
      name: 'some counting, some held',
      fences: [fence('a1-1', { at: 10, paused: true, policy: 'racks' })],
      upcoming: [up('b1-1', 4)],
      now: 0,
      want: '1 fence in 4 s; 1 fence held: policy racks is paused',
    },
    {
      name: 'a window not known yet',
      fences: [fence('a1-1')],
      upcoming: [],
      now: 0,
      want: '1 fence announced',
    },
  ];
  it.each(cases)('$name', ({ fences, upcoming, now, want }) => {
    expect(announcedText(summarize(announcedFences(fences, upcoming)), T0 + now * 1000)).toBe(want);
  });

  it('offers to pause the running policies and resume the paused ones', () => {
    const s = summarize(
      announcedFences(
        [fence('a1-1', { at: 3, policy: 'racks' }), fence('a1-2', { at: 3, policy: 'zones', paused: true })],
        [up('b1-1', 4, { policy: 'racks' })],
      ),
    );
    expect(s).toMatchObject({
      counting: 2,
      held: 1,
      running: ['racks'],
      paused: ['zones'],
      nextAt: T0 + 3000,
    });
  });

  it.each([
    [0, 1000, 1],
    [999, 1000, 1],
    [1000, 1000, 0],
    [5000, 1000, 0],
  ])('secondsLeft(now %i, at %i) = %i', (now, at, want) => expect(secondsLeft(at, now)).toBe(want));
});
