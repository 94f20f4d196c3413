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

  it('lists the leader changes and the longest gap between Lease writes before a moment', () => {
    const h = new ProtectorHistory(new k8s.KubeConfig());
    const inner = h as unknown as { leaders: unknown[]; renewals: number[] };
    inner.leaders.push({ at: 1_000, holder: 'a' }, { at: 50_000, holder: 'b' });
    inner.renewals.push(1_000, 2_000, 50_000, 51_000);
    expect(h.leadersBefore(60_000, 30_000)).toBe(
      'leader changes in the 30 s before: 00:00:50.000 b; Lease writes 2, longest gap 1.0 s',
    );
    expect(h.leadersBefore(60_000, 60_000)).toContain('Lease writes 4, longest gap 48.0 s');
  });
});
