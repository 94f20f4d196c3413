import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type EndpointSliceView, type EndpointView, endpointChanges, endpointSliceView } from './endpoints';

const ep = (podUid: string, over: Partial<EndpointView> = {}): EndpointView => ({
  podUid,
  ready: true,
  serving: true,
  terminating: false,
  ...over,
});
const slice = (...endpoints: EndpointView[]): EndpointSliceView => ({
  namespace: 'shop',
  name: 'web-abc',
  service: 'web',
  endpoints,
});

describe('endpointChanges', () => {
  it.each<[string, EndpointSliceView | undefined, EndpointSliceView | undefined, object[]]>([
    ['a slice seen for the first time', undefined, slice(ep('a')), []],
    ['nothing changed', slice(ep('a')), slice(ep('a')), []],
    ['a pod joined', slice(ep('a')), slice(ep('a'), ep('b')), []],
    [
      'a pod started terminating (ready false, still serving)',
      slice(ep('a')),
      slice(ep('a', { ready: false, terminating: true })),
      [{ podUid: 'a', service: 'web', change: 'terminating' }],
    ],
    [
      'a pod became not ready',
      slice(ep('a')),
      slice(ep('a', { ready: false, serving: false })),
      [{ podUid: 'a', service: 'web', change: 'not-ready' }],
    ],
    [
      'a not-ready pod then terminates',
      slice(ep('a', { ready: false })),
      slice(ep('a', { ready: false, terminating: true })),
      [{ podUid: 'a', service: 'web', change: 'terminating' }],
    ],
    [
      'a pod removed',
      slice(ep('a'), ep('b')),
      slice(ep('b')),
      [{ podUid: 'a', service: 'web', change: 'removed' }],
    ],
    [
      'the slice deleted',
      slice(ep('a'), ep('b')),
      undefined,
      [
        { podUid: 'a', service: 'web', change: 'removed' },
        { podUid: 'b', service: 'web', change: 'removed' },
      ],
    ],
  ])('%s', (_what, old, next, want) => {
    expect(endpointChanges(old, next)).toEqual(want);
  });
});

describe('endpointSliceView', () => {
  it('keeps pod endpoints with their conditions (unset ready means ready)', () => {
    const v = endpointSliceView({
      addressType: 'IPv4',
      metadata: { namespace: 'shop', name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
      endpoints: [
        { addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', uid: 'a' } },
        {
          addresses: ['10.0.0.2'],
          targetRef: { kind: 'Pod', uid: 'b' },
          conditions: { ready: false, serving: true, terminating: true },
        },
        { addresses: ['10.0.0.3'] },
      ],
    } as k8s.V1EndpointSlice);
    expect(v).toEqual({
      namespace: 'shop',
      name: 'web-abc',
      service: 'web',
      endpoints: [
        { podUid: 'a', ready: true, serving: true, terminating: false },
        { podUid: 'b', ready: false, serving: true, terminating: true },
      ],
    });
  });
});
