import { describe, expect, it } from 'vitest';
import { type Floor, type FloorPod, availableCount, isAvailable, judgeDeletion } from './floorCheck.js';

const NOW = Date.parse('2025-01-01T00:10:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

function pod(
  opts: {
    app?: string;
    tier?: string;
    ready?: boolean;
    readyFor?: number;
    deleting?: boolean;
    phase?: string;
  } = {},
): FloorPod {
  const labels: Record<string, string> = { app: opts.app ?? 'web' };
  if (opts.tier) labels.tier = opts.tier;
  return {
    metadata: { labels, ...(opts.deleting ? { deletionTimestamp: ago(0) } : {}) },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: [
        {
          type: 'Ready',
          status: opts.ready === false ? 'False' : 'True',
          lastTransitionTime: ago(opts.readyFor ?? 600),
        },
      ],
    },
  };
}

const floor = (over: Partial<Floor> = {}): Floor => ({
  minAvailable: 2,
  minReadySeconds: 0,
  selector: { matchLabels: { app: 'web' } },
  ...over,
});

describe('isAvailable', () => {
  it.each([
    ['ready long ago', pod(), 0, true],
    ['not ready', pod({ ready: false }), 0, false],
    ['terminating', pod({ deleting: true }), 0, false],
    ['succeeded', pod({ phase: 'Succeeded' }), 0, false],
    ['ready for less than minReadySeconds', pod({ readyFor: 5 }), 10, false],
    ['ready for exactly minReadySeconds', pod({ readyFor: 10 }), 10, true],
    ['no conditions', { metadata: {}, status: { phase: 'Running' } }, 0, false],
    [
      'Ready without a time (Go zero time)',
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      30,
      true,
    ],
  ] as [string, FloorPod, number, boolean][])('%s', (_name, p, mrs, want) => {
    expect(isAvailable(p, mrs, NOW)).toBe(want);
  });
});

describe('availableCount', () => {
  it('counts with aggregationSelector when set, else selector', () => {
    const pods = [pod(), pod({ app: 'web', tier: 'canary' }), pod({ app: 'other' })];
    expect(availableCount(floor(), pods, NOW)).toBe(2);
    expect(availableCount(floor({ selector: { matchLabels: { tier: 'canary' } } }), pods, NOW)).toBe(1);
    expect(
      availableCount(
        floor({ selector: { matchLabels: { tier: 'canary' } }, aggregationSelector: {} }),
        pods,
        NOW,
      ),
    ).toBe(3);
  });
});

describe('judgeDeletion', () => {
  const three = () => [pod(), pod(), pod()];
  it.each([
    {
      name: 'first of three with minAvailable 2: still at the floor',
      f: floor(),
      before: pod(),
      after: [pod({ deleting: true }), pod(), pod()],
      want: { available: 2, minAvailable: 2, breached: false },
    },
    {
      name: 'second of three with minAvailable 2: below the floor',
      f: floor(),
      before: pod(),
      after: [pod({ deleting: true }), pod({ deleting: true }), pod()],
      want: { available: 1, minAvailable: 2, breached: true },
    },
    {
      name: 'a force-deleted pod is simply gone from after',
      f: floor({ minAvailable: 3 }),
      before: pod(),
      after: [pod(), pod()],
      want: { available: 2, minAvailable: 3, breached: true },
    },
    {
      name: 'replacements not yet available do not count',
      f: floor(),
      before: pod(),
      after: [pod({ deleting: true }), pod(), pod({ ready: false })],
      want: { available: 1, minAvailable: 2, breached: true },
    },
    {
      name: 'an unprotected pod is not judged',
      f: floor({ minAvailable: 5 }),
      before: pod({ app: 'other' }),
      after: three(),
      want: undefined,
    },
    {
      name: 'a pod that was not available is not judged',
      f: floor({ minAvailable: 5 }),
      before: pod({ ready: false }),
      after: three(),
      want: undefined,
    },
    {
      name: 'a pod ready for less than minReadySeconds is not judged',
      f: floor({ minAvailable: 5, minReadySeconds: 30 }),
      before: pod({ readyFor: 10 }),
      after: three(),
      want: undefined,
    },
    {
      name: 'minAvailable 0 is never breached',
      f: floor({ minAvailable: 0 }),
      before: pod(),
      after: [],
      want: { available: 0, minAvailable: 0, breached: false },
    },
  ])('$name', ({ f, before, after, want }) => {
    expect(judgeDeletion(f, before, after, NOW)).toEqual(want);
  });
});
