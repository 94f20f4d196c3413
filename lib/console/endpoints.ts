// EndpointSlices, trimmed to what the termination timeline needs: which pods each slice
// lists and whether each endpoint is ready, serving or terminating. EndpointSlices carry no
// per-endpoint timestamps, so the console notes *when it observed* a pod leave: the
// moment it stopped receiving new traffic (seed 003, step 5).
import type * as k8s from '@kubernetes/client-node';

export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';

export interface EndpointView {
  podUid: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

export interface EndpointSliceView {
  namespace: string;
  name: string;
  service: string;
  endpoints: EndpointView[];
}

export function endpointSliceView(s: k8s.V1EndpointSlice): EndpointSliceView {
  const m = s.metadata ?? {};
  return {
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    service: m.labels?.[LABEL_SERVICE_NAME] ?? m.name ?? '',
    endpoints: (s.endpoints ?? [])
      .filter((e) => e.targetRef?.kind === 'Pod' && e.targetRef.uid)
      .map((e) => ({
        podUid: e.targetRef!.uid!,
        // unset means ready (the API's own default for `ready`)
        ready: e.conditions?.ready !== false,
        serving: e.conditions?.serving ?? e.conditions?.ready !== false,
        terminating: e.conditions?.terminating === true,
      })),
  };
}

export type EndpointChangeKind = 'not-ready' | 'terminating' | 'removed';

export interface EndpointChange {
  podUid: string;
  service: string;
  change: EndpointChangeKind;
}

/**
 * What left the load balancer between two versions of one slice: an endpoint that was ready
 * and now is not (terminating or merely not ready), or that is gone from the slice. Joins
 * are not changes the timeline shows; a slice seen for the first time yields nothing.
 */
export function endpointChanges(
  old: EndpointSliceView | undefined,
  next: EndpointSliceView | undefined,
): EndpointChange[] {
  if (!old) return [];
  const service = (next ?? old).service;
  const now = new Map((next?.endpoints ?? []).map((e) => [e.podUid, e]));
  const out: EndpointChange[] = [];
  for (const before of old.endpoints) {
    const after = now.get(before.podUid);
    if (!after) out.push({ podUid: before.podUid, service, change: 'removed' });
    else if (after.terminating && !before.terminating)
      out.push({ podUid: before.podUid, service, change: 'terminating' });
    else if (before.ready && !after.ready) out.push({ podUid: before.podUid, service, change: 'not-ready' });
  }
  return out;
}
