import { describe, expect, it } from 'vitest';
import type { EndpointSliceView } from '../console/endpoints';
import { node, pod } from './fixtures.test-helpers';
import { MAX_SERVICE_ROWS, serviceImpactOf } from './services';

const slice = (
  service: string,
  endpoints: [uid: string, ready: boolean, terminating?: boolean][],
  name = `${service}-x`,
): EndpointSliceView => ({
  namespace: 'shop',
  name,
  service,
  endpoints: endpoints.map(([podUid, ready, terminating = false]) => ({
    podUid,
    ready,
    serving: ready,
    terminating,
  })),
});

const nodes = [node('a1-1'), node('a1-2', 'Unknown')];
const pods = [pod('web-0', 'a1-1'), pod('web-1', 'a1-2'), pod('db-0', 'a1-2'), pod('db-1', 'a1-2')];

describe('serviceImpactOf', () => {
  it.each<[string, EndpointSliceView[], unknown]>([
    ['every endpoint ready: nothing listed', [slice('web', [['uid-web-0', true]])], []],
    [
      'one endpoint lost on a down node',
      [
        slice('web', [
          ['uid-web-0', true],
          ['uid-web-1', false],
        ]),
      ],
      [
        {
          service: 'web',
          ready: 1,
          endpoints: 2,
          notReady: [{ pod: 'shop/web-1', node: 'a1-2', nodeDown: true }],
        },
      ],
    ],
    [
      'a Service of two slices counts each pod once',
      [
        slice('web', [['uid-web-0', true]], 'web-a'),
        slice(
          'web',
          [
            ['uid-web-1', false],
            ['uid-web-0', true],
          ],
          'web-b',
        ),
      ],
      [{ service: 'web', ready: 1, endpoints: 2 }],
    ],
    [
      'a terminating endpoint takes no new traffic',
      [slice('web', [['uid-web-0', true, true]])],
      [{ service: 'web', ready: 0, endpoints: 1 }],
    ],
    [
      'a Service with no ready endpoint comes first',
      [
        slice('web', [
          ['uid-web-0', true],
          ['uid-web-1', false],
        ]),
        slice('db', [
          ['uid-db-0', false],
          ['uid-db-1', false],
        ]),
      ],
      [
        { service: 'db', ready: 0, endpoints: 2 },
        { service: 'web', ready: 1, endpoints: 2 },
      ],
    ],
    [
      'a pod the console no longer has is named by its uid',
      [slice('web', [['0123456789ab', false]])],
      [{ notReady: [{ pod: '(pod 01234567)', nodeDown: false }] }],
    ],
  ])('%s', (_, services, want) => {
    expect(serviceImpactOf({ services, pods, nodes }).rows).toMatchObject(want as object[]);
  });

  it(`lists ${MAX_SERVICE_ROWS} and counts the rest`, () => {
    const services = Array.from({ length: MAX_SERVICE_ROWS + 3 }, (_, i) =>
      slice(`s${i}`, [['uid-web-1', false]]),
    );
    const r = serviceImpactOf({ services, pods, nodes });
    expect(r.rows).toHaveLength(MAX_SERVICE_ROWS);
    expect(r.more).toBe(3);
  });
});
