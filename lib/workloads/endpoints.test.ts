import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { endpointConditions, serviceEndpoints, slicePorts } from './endpoints.js';
import { fixturePod as pod } from './testPods.js';

const service = (spec: k8s.V1ServiceSpec = {}): k8s.V1Service => ({
  metadata: { name: 'web', namespace: 'ns' },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 as any }], ...spec },
});

describe('endpointConditions', () => {
  it.each([
    ['ready', { ready: true }, false, { ready: true, serving: true, terminating: false }],
    ['not ready', { ready: false }, false, { ready: false, serving: false, terminating: false }],
    [
      'terminating but still serving',
      { ready: true, deleting: true },
      false,
      { ready: false, serving: true, terminating: true },
    ],
    [
      'terminating and not ready',
      { ready: false, deleting: true },
      false,
      { ready: false, serving: false, terminating: true },
    ],
    [
      'publishNotReadyAddresses',
      { ready: false, deleting: true },
      true,
      { ready: true, serving: true, terminating: true },
    ],
  ])('%s', (_n, f, publish, want) => {
    expect(endpointConditions(pod({ name: 'p', node: 'n', ...f }), publish)).toEqual(want);
  });
});

describe('serviceEndpoints', () => {
  it('lists selected pods with an IP, sorted, with node and targetRef', () => {
    const eps = serviceEndpoints(
      service(),
      [
        pod({ name: 'b', node: 'n2', ready: true, ip: '10.0.0.2' }),
        pod({ name: 'a', node: 'n1', ready: true, ip: '10.0.0.1' }),
        pod({ name: 'no-ip', node: 'n1', ready: true }),
        pod({ name: 'other', node: 'n1', ready: true, ip: '10.0.0.3', labels: { app: 'db' } }),
        pod({ name: 'done', node: 'n1', phase: 'Succeeded', ip: '10.0.0.4' }),
      ],
      (n) => (n === 'n1' ? 'zone-a' : undefined),
    );
    expect(eps.map((e) => e.targetRef?.name)).toEqual(['a', 'b']);
    expect(eps[0]).toMatchObject({ addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'zone-a' });
    expect(eps[1].zone).toBeUndefined();
  });

  it('selects nothing for a service without selector', () => {
    expect(serviceEndpoints(service({ selector: undefined }), [pod({ name: 'a', ip: '1.1.1.1' })])).toEqual(
      [],
    );
  });
});

describe('slicePorts', () => {
  it('uses numeric targetPorts and resolves named ones from the pods', () => {
    const named = pod({ name: 'a' });
    named.spec!.containers[0].ports = [{ name: 'web', containerPort: 9000 }];
    const svc = service({
      ports: [
        { name: 'http', port: 80, targetPort: 8080 as any },
        { name: 'alt', port: 81, targetPort: 'web' as any, protocol: 'TCP' },
        { name: 'gone', port: 82, targetPort: 'missing' as any },
      ],
    });
    expect(slicePorts(svc, [named])).toEqual([
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'alt', port: 9000, protocol: 'TCP' },
    ]);
  });
});
