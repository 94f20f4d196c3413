// Service impact (issue 25, 4): for each Service, its endpoints that are not ready now, and the
// nodes those pods sit on. From the EndpointSlices (the endpoints a Service actually routes to,
// as the EndpointSlice controller keeps them), not from pod labels: a pod the node lifecycle
// controller marked NotReady when its node went Unknown has left the Service's traffic. A
// Service may have several slices; an endpoint is counted once per pod. Services whose every
// endpoint is ready are not listed; a Service with no ready endpoint at all comes first.
import type { EndpointSliceView } from '../console/endpoints';
import type { NodeView, PodView } from '../console/protocol';

export interface ServiceImpact {
  namespace: string;
  service: string;
  ready: number;
  endpoints: number;
  /** the endpoints not ready: the pod, its node, whether that node is down */
  notReady: { pod: string; node?: string; nodeDown: boolean }[];
}

/** rows shown; the rest are counted */
export const MAX_SERVICE_ROWS = 20;

function byService(slices: readonly EndpointSliceView[]) {
  const out = new Map<string, { namespace: string; service: string; ready: Map<string, boolean> }>();
  for (const s of slices) {
    const key = `${s.namespace}/${s.service}`;
    let e = out.get(key);
    if (!e) out.set(key, (e = { namespace: s.namespace, service: s.service, ready: new Map() }));
    // a terminating endpoint takes no new traffic: not ready, whatever its condition says
    for (const ep of s.endpoints)
      e.ready.set(ep.podUid, (e.ready.get(ep.podUid) ?? false) || (ep.ready && !ep.terminating));
  }
  return [...out.values()];
}

export function serviceImpactOf(i: {
  services?: readonly EndpointSliceView[];
  pods: readonly PodView[];
  nodes: readonly NodeView[];
}): { rows: ServiceImpact[]; more: number } {
  const pods = new Map(i.pods.map((p) => [p.uid, p]));
  const down = new Set(i.nodes.filter((n) => n.ready !== 'Ready').map((n) => n.name));
  const rows: ServiceImpact[] = [];
  for (const s of byService(i.services ?? [])) {
    const notReadyUids = [...s.ready].filter(([, ready]) => !ready).map(([uid]) => uid);
    if (notReadyUids.length === 0) continue;
    rows.push({
      namespace: s.namespace,
      service: s.service,
      ready: s.ready.size - notReadyUids.length,
      endpoints: s.ready.size,
      notReady: notReadyUids.map((uid) => {
        const p = pods.get(uid);
        const node = p?.node || undefined;
        return {
          pod: p ? `${p.namespace}/${p.name}` : `(pod ${uid.slice(0, 8)})`,
          node,
          nodeDown: !!node && down.has(node),
        };
      }),
    });
  }
  // no ready endpoint first, then the largest share lost, then by name
  rows.sort(
    (a, b) =>
      Number(b.ready === 0) - Number(a.ready === 0) ||
      a.ready / a.endpoints - b.ready / b.endpoints ||
      `${a.namespace}/${a.service}`.localeCompare(`${b.namespace}/${b.service}`),
  );
  return { rows: rows.slice(0, MAX_SERVICE_ROWS), more: Math.max(0, rows.length - MAX_SERVICE_ROWS) };
}
