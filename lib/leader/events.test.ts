import { describe, expect, it } from 'vitest';
import { electedEvent, eventEpoch, isStaleEpochRefusal, staleWriteEvent } from './events.js';

const lease = { namespace: 'kube-system', name: 'palisade-controller', uid: 'u-1' };
const at = new Date('2026-11-27T04:00:00.123Z');

describe('Lease events', () => {
  it('an acquisition names the holder and its epoch, on the Lease', () => {
    const e = electedEvent(lease, 'host_12_ab', 4, at);
    expect(e).toMatchObject({
      metadata: { namespace: 'kube-system' },
      involvedObject: {
        kind: 'Lease',
        apiVersion: 'coordination.k8s.io/v1',
        name: 'palisade-controller',
        uid: 'u-1',
      },
      reason: 'LeaderElection',
      type: 'Normal',
      message: 'host_12_ab became leader (epoch 4)',
      action: 'epoch-4',
      reportingInstance: 'host_12_ab',
      eventTime: '2026-11-27T04:00:00.123000Z',
    });
    expect(e.metadata?.name).toMatch(/^palisade-controller\.leaderelection-/);
  });

  it('a refused stale write is a Warning whose action is the stale epoch', () => {
    const e = staleWriteEvent(lease, {
      epoch: 3,
      what: 'UPDATE nodes x',
      message: 'stale leader',
      by: 'r2',
      at,
    });
    expect(e).toMatchObject({ reason: 'StaleLeaderWrite', type: 'Warning', action: 'epoch-3' });
    expect(e.message).toBe('refused UPDATE nodes x: stale leader');
  });

  it('two reporters in one millisecond write two events', () => {
    expect(electedEvent(lease, 'a', 1, at).metadata?.name).not.toBe(
      electedEvent(lease, 'b', 1, at).metadata?.name,
    );
  });

  it.each([
    [{ action: 'epoch-7' }, 7],
    [{ action: 'epoch-0' }, 0],
    [{ action: 'epoch-' }, undefined],
    [{ action: 'epoch-1x' }, undefined],
    [{ action: 'ForceDeletePod' }, undefined],
    [{}, undefined],
  ])('eventEpoch(%j) = %s', (e, want) => expect(eventEpoch(e)).toBe(want));

  const stale = { details: { causes: [{ reason: 'PalisadeStaleLeaderEpoch' }] } };
  it.each([
    ['a client-node error with a parsed body', { code: 409, body: stale }, true],
    ['a client-node error with a text body', { code: 409, body: JSON.stringify(stale) }, true],
    ['another conflict', { code: 409, body: { reason: 'Conflict' } }, false],
    ['a body that is not JSON', { body: '<html>' }, false],
    ['nothing', null, false],
  ])('isStaleEpochRefusal: %s', (_, err, want) => expect(isStaleEpochRefusal(err)).toBe(want));
});
