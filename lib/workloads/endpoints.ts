// What an EndpointSlice says about each pod behind a Service (EndpointSlice controller,
// utils.go podToEndpoint): ready = Ready and not terminating, serving = Ready even while
// terminating, terminating = deletionTimestamp set. A terminating pod leaves the load
// balancer (ready=false) as soon as its deletion starts, in parallel with its preStop
// hook and SIGTERM (seed 003).
import type * as k8s from '@kubernetes/client-node';
import { isPodReady, isTerminal, isTerminating } from './pods.js';

export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
export const MANAGED_BY = 'endpointslice-controller.k8s.io';

export function endpointConditions(pod: k8s.V1Pod, publishNotReady = false): k8s.V1EndpointConditions {
  const terminating = isTerminating(pod);
  const serving = publishNotReady || isPodReady(pod);
  return { ready: serving && (publishNotReady || !terminating), serving, terminating };
}

/** Pods with an IP that have not finished are listed (terminating ones included). */
export const listedInSlice = (pod: k8s.V1Pod) => !!pod.status?.podIP && !isTerminal(pod);

/** Services without a selector have hand-made endpoints: the controller leaves them alone. */
export const hasSelector = (service: k8s.V1Service) => Object.keys(service.spec?.selector ?? {}).length > 0;

/** A Service selector is a plain label map. */
export function selects(service: k8s.V1Service, labels: Record<string, string> | undefined): boolean {
  if (!hasSelector(service)) return false;
  return Object.entries(service.spec!.selector!).every(([k, v]) => labels?.[k] === v);
}

function containerPort(pods: k8s.V1Pod[], name: string, protocol: string): number | undefined {
  for (const p of pods)
    for (const c of p.spec?.containers ?? [])
      for (const cp of c.ports ?? [])
        if (cp.name === name && (cp.protocol ?? 'TCP') === protocol) return cp.containerPort;
  return undefined;
}

/** Slice ports from the service's targetPorts; a named port is looked up in the pods. */
export function slicePorts(service: k8s.V1Service, pods: k8s.V1Pod[]): k8s.DiscoveryV1EndpointPort[] {
  const out: k8s.DiscoveryV1EndpointPort[] = [];
  for (const sp of service.spec?.ports ?? []) {
    const protocol = sp.protocol ?? 'TCP';
    const t = sp.targetPort ?? sp.port;
    const port = typeof t === 'number' ? t : /^\d+$/.test(t) ? Number(t) : containerPort(pods, t, protocol);
    if (port === undefined) continue;
    out.push({
      ...(sp.name ? { name: sp.name } : { name: '' }),
      port,
      protocol,
      ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
    });
  }
  return out;
}

export function podEndpoint(service: k8s.V1Service, pod: k8s.V1Pod, zone?: string): k8s.V1Endpoint {
  const m = pod.metadata!;
  const hostname =
    pod.spec?.hostname && pod.spec.subdomain === service.metadata?.name ? pod.spec.hostname : undefined;
  return {
    addresses: [pod.status!.podIP!],
    conditions: endpointConditions(pod, !!service.spec?.publishNotReadyAddresses),
    ...(hostname ? { hostname } : {}),
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    ...(zone ? { zone } : {}),
    targetRef: { kind: 'Pod', namespace: m.namespace, name: m.name, uid: m.uid },
  };
}

/** The endpoints of a Service, in a stable order (by pod name) so unchanged means equal. */
export function serviceEndpoints(
  service: k8s.V1Service,
  pods: k8s.V1Pod[],
  zoneOf: (node: string | undefined) => string | undefined = () => undefined,
): k8s.V1Endpoint[] {
  return pods
    .filter((p) => selects(service, p.metadata?.labels) && listedInSlice(p))
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))
    .map((p) => podEndpoint(service, p, zoneOf(p.spec?.nodeName)));
}
