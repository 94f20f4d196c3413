// When each pod left its Services' endpoints, as observed by the console's EndpointSlice
// informer (slices carry no per-endpoint timestamps). Bounded: the changes of the most
// recent pods only, enough for any termination someone is looking at.
import { type EndpointChange, type EndpointSliceView, endpointChanges } from '../../lib/console/endpoints.js';

export interface ObservedEndpointChange extends Omit<EndpointChange, 'podUid'> {
  /** when the console saw it (ms since epoch) */
  at: number;
}

export class EndpointTracker {
  private readonly byPod = new Map<string, ObservedEndpointChange[]>();

  constructor(private readonly maxPods = 20_000) {}

  /** A slice changed from `old` to `next` (undefined: created or deleted). */
  record(old: EndpointSliceView | undefined, next: EndpointSliceView | undefined, at = Date.now()) {
    for (const c of endpointChanges(old, next)) {
      const list = this.byPod.get(c.podUid) ?? [];
      list.push({ service: c.service, change: c.change, at });
      // re-insert so the map's order is least recently changed first
      this.byPod.delete(c.podUid);
      this.byPod.set(c.podUid, list);
      if (this.byPod.size > this.maxPods) this.byPod.delete(this.byPod.keys().next().value!);
    }
  }

  changesFor(podUid: string): ObservedEndpointChange[] {
    return this.byPod.get(podUid) ?? [];
  }
}
