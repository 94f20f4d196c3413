import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resources/types.js';
import { planDeletion, shouldRemoveAfterUpdate } from './deletion.js';

const now = new Date('2026-01-01T00:00:00Z');
const pod = (extra: Record<string, any> = {}, meta: Record<string, any> = {}): KubeObject => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u', ...meta },
  spec: { nodeName: 'n1', terminationGracePeriodSeconds: 30, containers: [] },
  status: { phase: 'Running' },
  ...extra,
});

describe('planDeletion', () => {
  const cases: {
    name: string;
    obj: KubeObject;
    opts: any;
    graceful: boolean;
    expect: string;
    grace?: number;
    ts?: string;
    finalizers?: string[];
  }[] = [
    {
      name: 'bound pod uses its termination grace',
      obj: pod(),
      opts: {},
      graceful: true,
      expect: 'update',
      grace: 30,
      ts: '2026-01-01T00:00:30Z',
    },
    {
      name: 'requested grace wins',
      obj: pod(),
      opts: { gracePeriodSeconds: 5 },
      graceful: true,
      expect: 'update',
      grace: 5,
    },
    {
      name: 'grace 0 removes at once',
      obj: pod(),
      opts: { gracePeriodSeconds: 0 },
      graceful: true,
      expect: 'remove',
    },
    {
      name: 'unscheduled pod goes at once',
      obj: pod({ spec: { containers: [] } }),
      opts: {},
      graceful: true,
      expect: 'remove',
    },
    {
      name: 'succeeded pod goes at once',
      obj: pod({ status: { phase: 'Succeeded' } }),
      opts: {},
      graceful: true,
      expect: 'remove',
    },
    {
      name: 'finalizer holds a non-graceful object',
      obj: pod({}, { finalizers: ['x'] }),
      opts: {},
      graceful: false,
      expect: 'update',
      grace: 0,
      finalizers: ['x'],
    },
    {
      name: 'grace 0 with finalizer keeps the pod',
      obj: pod({}, { finalizers: ['x'] }),
      opts: { gracePeriodSeconds: 0 },
      graceful: true,
      expect: 'update',
      grace: 0,
    },
    {
      name: 'foreground adds its finalizer',
      obj: pod({ spec: {} }),
      opts: { propagationPolicy: 'Foreground' },
      graceful: false,
      expect: 'update',
      finalizers: ['foregroundDeletion'],
    },
    {
      name: 'orphan adds its finalizer',
      obj: pod({ spec: {} }),
      opts: { propagationPolicy: 'Orphan' },
      graceful: false,
      expect: 'update',
      finalizers: ['orphan'],
    },
    {
      name: 'orphanDependents=true means orphan',
      obj: pod({ spec: {} }),
      opts: { orphanDependents: true },
      graceful: false,
      expect: 'update',
      finalizers: ['orphan'],
    },
    {
      name: 'plain object without finalizers is removed',
      obj: pod(),
      opts: {},
      graceful: false,
      expect: 'remove',
    },
    {
      name: 'pending graceful deletion may only shorten',
      obj: pod({}, { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }),
      opts: { gracePeriodSeconds: 60 },
      graceful: true,
      expect: 'unchanged',
    },
    {
      name: 'shorter grace moves the deadline earlier',
      obj: pod({}, { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }),
      opts: { gracePeriodSeconds: 10 },
      graceful: true,
      expect: 'update',
      grace: 10,
      ts: '2026-01-01T00:00:10Z',
    },
    {
      name: 'grace 0 on a terminating pod removes it',
      obj: pod({}, { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }),
      opts: { gracePeriodSeconds: 0 },
      graceful: true,
      expect: 'remove',
    },
    {
      name: 'repeat delete without grace changes nothing',
      obj: pod({}, { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }),
      opts: {},
      graceful: true,
      expect: 'unchanged',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planDeletion(c.obj, c.opts, c.graceful, now);
      expect(plan.action).toBe(c.expect);
      // a graceful kind is marked (deletionTimestamp, grace 0) before it is removed
      if (plan.action === 'remove')
        expect(plan.marked?.metadata.deletionGracePeriodSeconds).toBe(c.graceful ? 0 : undefined);
      if (plan.action === 'update') {
        if (c.grace !== undefined) expect(plan.obj.metadata.deletionGracePeriodSeconds).toBe(c.grace);
        if (c.ts) expect(plan.obj.metadata.deletionTimestamp).toBe(c.ts);
        if (c.finalizers) expect(plan.obj.metadata.finalizers).toEqual(c.finalizers);
        expect(c.obj.metadata.deletionTimestamp === plan.obj.metadata.deletionTimestamp).toBe(
          !!c.obj.metadata.deletionTimestamp && c.ts === undefined,
        );
      }
    });
  }
});

describe('shouldRemoveAfterUpdate', () => {
  const m = (meta: Record<string, any>): KubeObject => ({ metadata: { name: 'x', ...meta } });
  it.each([
    [
      'last finalizer removed while deleting',
      m({ deletionTimestamp: 't', deletionGracePeriodSeconds: 0 }),
      m({ finalizers: ['a'] }),
      true,
    ],
    [
      'finalizers remain',
      m({ deletionTimestamp: 't', finalizers: ['b'] }),
      m({ finalizers: ['a', 'b'] }),
      false,
    ],
    ['not being deleted', m({}), m({ finalizers: ['a'] }), false],
    [
      'graceful period still pending',
      m({ deletionTimestamp: 't', deletionGracePeriodSeconds: 30 }),
      m({ finalizers: ['a'] }),
      false,
    ],
    ['old had no finalizers', m({ deletionTimestamp: 't' }), m({}), false],
  ])('%s', (_n, updated, old, want) => {
    expect(shouldRemoveAfterUpdate(updated, old)).toBe(want);
  });
});
