import { describe, expect, it } from 'vitest';
import { isStaleEpochRefusal, STALE_EPOCH_CAUSE } from '../../lib/leader/events.js';
import type { PodProtector } from '../../lib/protection/types.js';
import { protectionMetrics } from './metrics.js';
import { type StatusApi, writeStatus } from './statusWrite.js';

const protector: PodProtector = {
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '7' },
  spec: { minAvailable: 1, minReadySeconds: 0, selector: { matchLabels: { app: 'web' } } },
};
const failing = (e: unknown): StatusApi => ({
  readStatus: async () => protector,
  replaceStatus: async () => {
    throw e;
  },
});
/** a 409 as kube-apiserver passes on Palisade's epoch webhook refusal: the cause in the details */
const staleRefusal = Object.assign(new Error('HTTP 409'), {
  code: 409,
  body: {
    kind: 'Status',
    code: 409,
    reason: 'Conflict',
    details: {
      causes: [{ reason: STALE_EPOCH_CAUSE, field: 'options.fieldManager', message: 'stale leader' }],
    },
  },
});

describe('writeStatus', () => {
  it('a plain 409 is a conflict to retry, a 404 a protector gone', async () => {
    const m = protectionMetrics();
    expect(
      await writeStatus(failing({ code: 409, body: { reason: 'Conflict' } }), m, 'aggregator', protector),
    ).toEqual({
      outcome: 'conflict',
    });
    expect(await writeStatus(failing({ code: 404 }), m, 'aggregator', protector)).toEqual({
      outcome: 'gone',
    });
  });

  it('a stale-epoch refusal is thrown as it came, so the runtime steps down', async () => {
    // found by server/test/fuzzControllers.int.test.ts: the aggregator took it for a conflict and
    // retried for ever, every write refused, while its console went on leading
    const e = await writeStatus(failing(staleRefusal), protectionMetrics(), 'aggregator', protector).catch(
      (x) => x,
    );
    expect(isStaleEpochRefusal(e)).toBe(true);
  });
});
