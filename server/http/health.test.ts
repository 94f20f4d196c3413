import { describe, expect, it } from 'vitest';
import type { ClusterConnection } from '../kube/connection.js';
import { type HealthSources, readiness } from './health.js';

const cluster = (id: string, synced: boolean) =>
  ({ id, isSynced: () => synced }) as unknown as ClusterConnection;

const sources = (o: Partial<HealthSources> = {}): HealthSources => ({
  clusters: [cluster('a', true), cluster('b', true)],
  stopping: () => false,
  ...o,
});

describe('readiness', () => {
  it.each([
    ['every informer synced, no protection', sources(), [], []],
    [
      'an informer not synced yet',
      sources({ clusters: [cluster('a', true), cluster('b', false)] }),
      ['informers of b have not synced'],
      [],
    ],
    [
      "the webhook cannot answer yet; the leader's warning rides along",
      sources({
        protection: {
          notReady: () => ['no serving certificate yet'],
          warnings: () => ['cell a: not enforced'],
        },
      }),
      ['no serving certificate yet'],
      ['cell a: not enforced'],
    ],
    [
      'SIGTERM: not ready, whatever else holds',
      sources({
        stopping: () => true,
        clusters: [cluster('a', false)],
        protection: { notReady: () => ['x'], warnings: () => ['y'] },
      }),
      ['stopping: the webhook drains'],
      [],
    ],
  ])('%s', (_name, s, missing, notes) => {
    expect(readiness(s)).toEqual({ missing, notes });
  });
});
