import { describe, expect, it } from 'vitest';
import { criterionOf, isForceDelete, podFacts, podHealth } from './pods.js';
import { protectorState } from './state.js';

const T = Date.parse('2026-11-23T10:00:00Z');
const pod = (over: Record<string, unknown> = {}) =>
  podFacts({
    metadata: { uid: 'u', name: 'p', namespace: 'n', labels: { app: 'x' }, ...over },
    spec: { nodeName: 'n1', containers: [] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(T - 10_000) }],
    },
  } as never);

describe('podHealth', () => {
  it.each([
    [
      'ready long enough: available',
      pod(),
      5,
      { scheduled: true, running: true, ready: true, available: true },
    ],
    [
      'ready, younger than minReadySeconds',
      pod(),
      30,
      { scheduled: true, running: true, ready: true, available: false },
    ],
    [
      'terminating counts nowhere',
      pod({ deletionTimestamp: new Date(T) }),
      0,
      { scheduled: false, running: false, ready: false, available: false },
    ],
  ])('%s', (_n, facts, minReady, health) => {
    expect(podHealth(facts, minReady, T)).toEqual(health);
  });
});

describe('criterionOf', () => {
  const key = 'podseidon.kubewharf.io/health-criterion';
  it.each([
    [undefined, undefined, 'Available'],
    [{ [key]: 'Ready' }, undefined, 'Ready'],
    [{ [key]: 'running' }, undefined, 'Running'],
    [{ [key]: 'Ready' }, { [key]: 'Scheduled' }, 'Scheduled'],
  ])('pod %j eviction %j -> %s', (podAnn, evAnn, want) => {
    expect(criterionOf(podAnn, evAnn)).toEqual({ ok: true, criterion: want });
  });
  it('names a bad value', () => {
    const r = criterionOf({ [key]: 'Alive' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain('"Alive"');
  });
  it('force delete annotation', () => {
    expect(isForceDelete({ 'podseidon.kubewharf.io/force-delete': 'true' })).toBe(true);
    expect(isForceDelete({})).toBe(false);
  });
});

describe('protectorState', () => {
  it.each([
    [5, 10, 10, false, 0, 'healthy'],
    [5, 10, 5, false, 0, 'at-floor'],
    [5, 5, 5, false, 3, 'blocking'],
    [5, 10, 10, true, 0, 'dangling'],
  ] as const)(
    'min %d agg %d est %d dangling %s denials %d -> %s',
    (min, agg, est, dangling, denials, want) => {
      expect(
        protectorState(
          min,
          { aggregatedAvailableReplicas: agg, estimatedAvailableReplicas: est },
          { dangling, recentDenials: denials },
        ),
      ).toBe(want);
    },
  );
});
