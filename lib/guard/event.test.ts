import { describe, expect, it } from 'vitest';
import { guardedActionEvent } from '../console/actionEvents';

const base = {
  reason: 'PalisadeDetach',
  action: 'detachVolume',
  involved: { kind: 'VolumeAttachment', apiVersion: 'storage.k8s.io/v1', name: 'csi-abc', uid: 'u1' },
  message: 'm',
  overridden: false,
  by: 'alice',
  via: 'impersonation',
  why: 'done',
  at: new Date('2026-05-01T10:00:00.123Z'),
};

describe('guardedActionEvent', () => {
  it('a cluster-scoped object: the Event goes to default, Normal when safe, eventTime with six digits', () => {
    const e = guardedActionEvent(base);
    expect(e.metadata).toMatchObject({
      namespace: 'default',
      name: 'csi-abc.palisade-detachvolume-momqrlvf',
    });
    expect(e).toMatchObject({
      type: 'Normal',
      reason: 'PalisadeDetach',
      source: { component: 'palisade-console' },
      reportingComponent: 'palisade-console',
      action: 'detachVolume',
    });
    expect(e.eventTime as unknown as string).toBe('2026-05-01T10:00:00.123000Z');
    // whole-second timestamps would lose the order of actions within a second
    expect(e.lastTimestamp).toBeUndefined();
    expect(e.metadata?.annotations).toEqual({
      'palisade.dev/actor': 'alice',
      'palisade.dev/actor-via': 'impersonation',
      'palisade.dev/verdict': 'safe',
      'palisade.dev/reason': 'done',
    });
  });

  it('a namespaced object: the Event goes to its namespace, Warning when the guard was overridden', () => {
    const e = guardedActionEvent({
      ...base,
      overridden: true,
      involved: { kind: 'Pod', apiVersion: 'v1', namespace: 'shop', name: 'db-0' },
      related: { kind: 'Node', apiVersion: 'v1', name: 'a1-2' },
    });
    expect(e.metadata?.namespace).toBe('shop');
    expect(e.type).toBe('Warning');
    expect(e.related).toEqual({ kind: 'Node', apiVersion: 'v1', name: 'a1-2' });
    expect(e.metadata?.annotations?.['palisade.dev/verdict']).toBe('overridden');
  });
});
