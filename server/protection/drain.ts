// When a stopping replica may stop taking connections: once its pod is no longer a ready
// endpoint of the webhook's Service (the EndpointSlice controller marks a terminating pod not
// ready, and the API server's service routing and kube-proxy then stop sending it new
// connections), and a moment later, the time that routing takes to catch up. A projection of
// the cluster's shared EndpointSlice watch, started with the service: by SIGTERM it is synced.
import * as k8s from '@kubernetes/client-node';
import { LABEL_SERVICE_NAME } from '../../lib/console/endpoints.js';
import type { InformerRegistry } from '../kube/informer.js';

/** after its endpoints are gone: how long routing (kube-proxy, the API server) takes to follow */
export const ROUTING_MARGIN_MS = 1_000;

interface SliceView {
  namespace: string;
  service: string;
  /** the pods this slice lists as ready (an unset condition is ready) */
  readyPods: string[];
}

const sliceView = (s: k8s.V1EndpointSlice): SliceView => ({
  namespace: s.metadata?.namespace ?? '',
  service: s.metadata?.labels?.[LABEL_SERVICE_NAME] ?? '',
  readyPods: (s.endpoints ?? [])
    .filter((e) => e.targetRef?.kind === 'Pod' && e.conditions?.ready !== false)
    .map((e) => e.targetRef!.name ?? ''),
});

export function ownEndpoints(
  registry: InformerRegistry,
  o: { namespace: string; name: string; pod: string },
): { gone(): Promise<void>; stop(): void } {
  const discovery = registry.kc.makeApiClient(k8s.DiscoveryV1Api);
  const slices = registry.informer({
    kind: 'endpointslices',
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    list: (p) => discovery.listEndpointSliceForAllNamespaces(p),
    project: sliceView,
  });
  let listed = false;
  const listeners = new Set<() => void>();
  const present = () =>
    !listed ||
    [...slices.values()].some(
      (s) => s.namespace === o.namespace && s.service === o.name && s.readyPods.includes(o.pod),
    );
  const changed = () => {
    if (present()) return;
    for (const l of listeners) l();
  };
  slices.on({ add: changed, update: changed, delete: changed });
  slices.start();
  void slices.synced().then(() => {
    listed = true;
    changed();
  });
  return {
    gone: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          listeners.delete(done);
          setTimeout(resolve, ROUTING_MARGIN_MS);
        };
        if (!present()) done();
        else listeners.add(done);
      }),
    stop: () => void slices.stop(),
  };
}
