import { describe, expect, it } from 'vitest';
import { apiSteps } from './apiSteps';

const events = [
  { reason: 'Scheduled', message: 'assigned', last: 1_000 },
  { reason: 'Killing', message: 'Stopping container app', last: 5_000 },
  { reason: 'Killing', message: 'liveness restart long ago', last: 2_000 },
  { reason: 'ExceededGracePeriod', message: 'did not stop in time', last: 40_000 },
];
const endpoints = [{ service: 'web', change: 'terminating', at: 5_100 }];

describe('apiSteps', () => {
  it('on a real cluster: endpoints, the kubelet events after the request, and the removal, in order', () => {
    expect(
      apiSteps({ events, endpoints, deletedAt: 41_000, requestedAt: 5_000, kubeletSteps: false }),
    ).toEqual([
      { step: 'event-killing', at: 5_000, detail: 'Stopping container app' },
      { step: 'left-endpoints', at: 5_100, detail: 'web: terminating, no new traffic' },
      { step: 'event-grace-exceeded', at: 40_000, detail: 'did not stop in time' },
      { step: 'gone-from-api', at: 41_000 },
    ]);
  });

  it('with the kubelet steps recorded (embedded cluster): only the endpoint changes', () => {
    expect(
      apiSteps({ events, endpoints, deletedAt: 41_000, requestedAt: 5_000, kubeletSteps: true }),
    ).toEqual([{ step: 'left-endpoints', at: 5_100, detail: 'web: terminating, no new traffic' }]);
  });

  it.each([
    ['removed', 'web: removed'],
    ['not-ready', 'web: not ready'],
  ])('names a %s endpoint change', (change, detail) => {
    const [s] = apiSteps({ events: [], endpoints: [{ service: 'web', change, at: 1 }], kubeletSteps: false });
    expect(s.detail).toBe(detail);
  });

  it('without a deletion request time, keeps every matching event', () => {
    const steps = apiSteps({ events, endpoints: [], kubeletSteps: false });
    expect(steps.map((s) => s.at)).toEqual([2_000, 5_000, 40_000]);
  });
});
