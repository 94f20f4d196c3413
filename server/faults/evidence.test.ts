// A protected-workload-above-floor violation's evidence: the webhook's booking of the deletion
// (or its absence) in the protector's status versions the run watched.
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ProtectorHistory } from './run.js';

const version = (rv: number, available: number, buckets: string[]) => ({
  rv,
  at: Date.parse('2026-11-29T10:00:00.000Z') + rv,
  protector: {
    metadata: { namespace: 'shop', name: 'deployment-checkout' },
    spec: { minAvailable: 3, selector: {} },
    status: {
      cells: [
        {
          cellID: 'c',
          aggregation: {
            availableReplicas: available,
            totalReplicas: 4,
            lastEventTime: '2026-11-29T09:59:58Z',
          },
          admissionHistory: {
            buckets: buckets.map((podName) => ({ podName, startTime: '2026-11-29T10:00:00Z' })),
          },
        },
      ],
    },
  },
});
const MESSAGE =
  'deleting pod shop/checkout-1 left 2 available pods, below minAvailable 3 of PodProtector shop/deployment-checkout';

describe('ProtectorHistory.admissionOf', () => {
  it('names the version that booked the pod and the counts it was judged on', () => {
    const h = new ProtectorHistory(new k8s.KubeConfig());
    (h as unknown as { seen: unknown[] }).seen.push(version(10, 4, []), version(12, 4, ['checkout-1']));
    const text = h.admissionOf(MESSAGE);
    expect(text).toContain('checkout-1 booked in shop/deployment-checkout rv 12');
    expect(text).toContain('available 4/4, 1 bucket(s)');
    expect(text).toContain('the version before, rv 10: c: available 4/4, 0 bucket(s)');
  });

  it('says when the pod was admitted without a booking', () => {
    const h = new ProtectorHistory(new k8s.KubeConfig());
    (h as unknown as { seen: unknown[] }).seen.push(version(10, 3, ['checkout-2']));
    expect(h.admissionOf(MESSAGE)).toMatch(
      /no booking of checkout-1 in the last 1 version\(s\).*without quota/,
    );
  });
});
