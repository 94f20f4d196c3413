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
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: new Date(T - 20_000) },
        { type: 'Ready', status: 'True', lastTransitionTime: new Date(T - 10_000) },
      ],
    },
  } as never);

describe('podFacts: scheduled is the PodScheduled condition, as in Podseidon', () => {
  const facts = (nodeName: string | undefined, podScheduled: string | undefined) =>
    podFacts({
      metadata: { uid: 'u', name: 'p', namespace: 'n' },
      spec: { nodeName, containers: [] },
      status: {
        phase: 'Pending',
        conditions: podScheduled ? [{ type: 'PodScheduled', status: podScheduled }] : [],
      },
    } as never).scheduled;
  it.each([
    ['condition True, no node (a fixture pod no scheduler takes)', undefined, 'True', true],
    ['condition True and a node', 'n1', 'True', true],
    ['condition False (unschedulable)', undefined, 'False', false],
    ['a node but no condition yet', 'n1', undefined, false],
  ])('%s', (_n, node, cond, want) => {
    expect(facts(node, cond)).toBe(want);
  });
});

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
    [{ [key]: 'Running' }, undefined, 'Running'],
    [{ [key]: 'Ready' }, { [key]: 'Scheduled' }, 'Scheduled'],
  ])('pod %j eviction %j -> %s', (podAnn, evAnn, want) => {
    expect(criterionOf(podAnn, evAnn)).toEqual({ ok: true, criterion: want });
  });
  it.each([['Alive'], ['running'], [' Ready'], ['']])(
    'judges an unknown value %j as Available (the strictest), with a warning naming it',
    (v) => {
      const r = criterionOf({ [key]: v });
      expect(r).toMatchObject({ ok: true, criterion: 'Available' });
      expect(r.ok && r.warning).toContain(JSON.stringify(v));
    },
  );
  it('an unknown value on the Eviction does not fall back to the pod', () => {
    expect(criterionOf({ [key]: 'Running' }, { [key]: 'Alive' })).toMatchObject({ criterion: 'Available' });
  });
  it('force delete annotation: present with any value', () => {
    expect(isForceDelete({ 'podseidon.kubewharf.io/force-delete': 'true' })).toBe(true);
    expect(isForceDelete({ 'podseidon.kubewharf.io/force-delete': '' })).toBe(true);
    expect(isForceDelete({ 'podseidon.kubewharf.io/force-delete': 'false' })).toBe(true);
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
