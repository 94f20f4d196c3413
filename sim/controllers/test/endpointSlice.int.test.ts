// EndpointSlice controller: endpoint conditions through a pod's life, so the console can
// show the moment a terminating pod left the load balancer (seed 003).
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../apiserver/test/harness.js';
import { EndpointSliceController } from '../endpoints.js';
import { mergePatch } from '../runtime/patches.js';
import { container, startWorkloads, type Workloads } from './workloadsHarness.js';

let w: Workloads;
const ns = 'svc';
beforeAll(async () => {
  w = await startWorkloads([new EndpointSliceController()], [ns]);
  await w.c.core.createNamespacedService({
    namespace: ns,
    body: {
      metadata: { name: 'api', labels: { tier: 'backend' } },
      spec: { selector: { app: 'api' }, ports: [{ name: 'http', port: 80, targetPort: 8080 as any }] },
    },
  });
});
afterAll(() => w?.stop());

const held = new Set<string>();
const createPod = (name: string, labels = { app: 'api' }) =>
  w.c.core.createNamespacedPod({
    namespace: ns,
    body: { metadata: { name, labels }, spec: { containers: [container()] } },
  });
// the real controller names its slices api-<random> (generateName), the simulated one "api"
const slice = () =>
  w.ctx.informers.endpointSlices
    .list(ns)
    .find((s) => s.metadata?.labels?.['kubernetes.io/service-name'] === 'api');
const endpoint = (pod: string) => slice()?.endpoints?.find((e) => e.targetRef?.name === pod);
const conditions = (pod: string) => {
  const c = endpoint(pod)?.conditions;
  return c && { ready: c.ready, serving: c.serving, terminating: c.terminating };
};
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe('EndpointSlice', () => {
  beforeAll(() => {
    w.kubelet.holdReady = (p) => held.has(p.metadata!.name!);
  });

  it('lists each selected pod with an IP, its node and a targetRef; ready when the pod is Ready', async () => {
    await createPod('api-a');
    await createPod('other', { app: 'db' } as any);
    await eventually(() => endpoint('api-a')?.conditions?.ready, 'api-a ready in the slice');
    const s = slice() as k8s.V1EndpointSlice;
    expect(s.metadata?.labels).toMatchObject({
      'kubernetes.io/service-name': 'api',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      tier: 'backend',
    });
    expect(s.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Service',
      name: 'api',
      controller: true,
    });
    expect(s.addressType).toBe('IPv4');
    expect(s.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const pod = w.kubelet.pods.get('api-a', ns)!;
    expect(endpoint('api-a')).toMatchObject({
      addresses: [pod.status?.podIP],
      nodeName: 'node-1',
      targetRef: { kind: 'Pod', name: 'api-a', namespace: ns, uid: pod.metadata?.uid },
    });
    expect(s.endpoints?.map((e) => e.targetRef?.name)).toEqual(['api-a']);
  });

  it('a running pod that is not Ready is listed neither ready nor serving', async () => {
    held.add('api-b');
    await createPod('api-b');
    await eventually(() => endpoint('api-b'), 'api-b listed');
    expect(conditions('api-b')).toEqual({ ready: false, serving: false, terminating: false });
    held.delete('api-b');
    w.kubelet.resync();
    await eventually(
      () => same(conditions('api-b'), { ready: true, serving: true, terminating: false }),
      'api-b ready',
    );
  });

  it('a terminating pod leaves the load balancer at once but is still shown serving, and goes when it is gone', async () => {
    await w.c.core.deleteNamespacedPod({ name: 'api-a', namespace: ns }); // graceful
    await eventually(
      () => same(conditions('api-a'), { ready: false, serving: true, terminating: true }),
      'api-a terminating but serving',
    );
    expect(conditions('api-b')?.ready).toBe(true);
    await w.c.core.deleteNamespacedPod({ name: 'api-a', namespace: ns, gracePeriodSeconds: 0 });
    await eventually(() => slice() && !endpoint('api-a'), 'api-a removed');
    expect(slice()?.endpoints?.map((e) => e.targetRef?.name)).toEqual(['api-b']);
  });

  it('follows label changes; a service losing its selector keeps its last slice as it was', async () => {
    await w.c.core.patchNamespacedPod(
      { name: 'api-b', namespace: ns, body: { metadata: { labels: { app: 'moved' } } } },
      mergePatch,
    );
    // a slice with no endpoints: the real controller leaves the list out
    await eventually(() => slice() && !slice()?.endpoints?.length, 'api-b dropped');
    const last = slice()!;
    await w.c.core.patchNamespacedService(
      { name: 'api', namespace: ns, body: { spec: { selector: null } } },
      mergePatch,
    );
    // the pod matches the old selector again: a controller still selecting would list it
    await w.c.core.patchNamespacedPod(
      { name: 'api-b', namespace: ns, body: { metadata: { labels: { app: 'api' } } } },
      mergePatch,
    );
    // kube-controller-manager leaves a selector-less service's slices to whoever writes them by hand
    const since = Date.now();
    await eventually(() => Date.now() > since + 1_500, 'time for a controller to act');
    expect(slice()?.metadata?.resourceVersion).toBe(last.metadata?.resourceVersion);
  });
});
