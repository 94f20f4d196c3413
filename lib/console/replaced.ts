// A pod page follows a name (namespace/name), but a name outlives the pod: after a force delete
// a StatefulSet creates a new pod with the same name, a new uid and often on another node. The
// page must say so and keep the two pods' events apart. Events name their pod's uid; those that
// do not (some older clients) go to the pod that existed when they last happened.
import type { EventView } from './views.js';

export interface Incarnation {
  uid: string;
  /** ms since epoch */
  createdAt?: number;
}

/** The current pod's events and the replaced one's, each oldest first as given. */
export function splitEvents(
  events: readonly EventView[],
  current: Incarnation,
  previous: Incarnation | undefined,
): { current: EventView[]; previous: EventView[] } {
  const out = { current: [] as EventView[], previous: [] as EventView[] };
  for (const e of events) {
    const uid = e.involved.uid;
    if (uid === current.uid) out.current.push(e);
    else if (previous && uid === previous.uid) out.previous.push(e);
    else if (uid)
      continue; // an older incarnation still: neither page's
    else if (!previous) out.current.push(e);
    else if ((e.lastSeen ?? 0) < (current.createdAt ?? 0)) out.previous.push(e);
    else out.current.push(e);
  }
  return out;
}

export interface ReplacedPod {
  uid: string;
  node?: string;
  /** when the console saw it go (ms since epoch) */
  until: number;
  createdAt?: number;
}
