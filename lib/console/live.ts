// The console's one live channel over socket.io, shared by server and browser: every event name
// and payload is here, in the two event maps socket.io types both ends with.
//
// Most pages are kept fresh by a change signal: the browser watches a topic of one cluster
// (`live:watch`, acknowledged with the feed's sequence number), the server sends a coalesced
// `live:changed` when anything the page shows may have changed, and the page refetches over tRPC
// (which decides what the person may see). A signal carries no data, only the keys that changed
// where a page can refetch just those. Numbers run on from the ack: a `fromSeq` the page did not
// reach means it missed a signal (it was away, or a signal was dropped), so it refetches all.
// The map's nodes and pods come as snapshot + deltas instead (`subscribe`, server/realtime/hub.ts).
import type { Ghost } from './ghosts.js';
import type {
  ClusterHealth,
  ClusterId,
  Delta,
  GhostsMessage,
  NodeView,
  PodView,
  Snapshot,
  SubscribeRequest,
  TerminationStepMessage,
} from './protocol.js';

/** Everything a page can watch, each one feed on the server. */
export const TOPICS = [
  'protection',
  'fencing',
  'volumes',
  'instance-ids',
  'incident',
  'audit',
  'history',
] as const;
export type Topic = (typeof TOPICS)[number];

export const LiveEvents = {
  watch: 'live:watch',
  unwatch: 'live:unwatch',
  changed: 'live:changed',
} as const;

/** client -> server: follow (or stop following) one topic of one cluster */
export interface LiveWatch {
  topic: Topic;
  cluster: ClusterId;
}

/** The answer to a watch: where the numbering stands, or why not. */
export type LiveAck = { ok: true; seq: number } | { ok: false; error: string };

/** server -> client, coalesced: refetch (just `keys`, when given) */
export interface LiveChanged {
  topic: Topic;
  cluster: ClusterId;
  /** the number this follows: the ack's or the previous signal's */
  fromSeq: number;
  seq: number;
  /** what changed, for topics whose pages refetch by key ("namespace/name"); may be empty */
  keys?: string[];
}

/** The room of a topic's watchers: never a name a person types. */
export const topicRoom = (topic: Topic, cluster: ClusterId) => `live/${topic}/${cluster}`;

/**
 * What a page does with a signal, given the last number it holds: refetch all (on a gap, or a
 * signal without keys), refetch some keys, or nothing (no keys of its own changed).
 */
export function afterSignal(
  last: number | undefined,
  c: Pick<LiveChanged, 'fromSeq' | 'seq' | 'keys'>,
): { seq: number; refetch: 'all' | 'none' | string[] } {
  if (last === undefined || c.fromSeq !== last || !c.keys) return { seq: c.seq, refetch: 'all' };
  return { seq: c.seq, refetch: c.keys.length ? c.keys : 'none' };
}

type Ack<T> = (reply: T) => void;
type SimAck = (reply: { ok: true } | { ok: false; error: string }) => void;

/** Every event the browser sends. */
export interface ClientToServerEvents {
  subscribe: (req: SubscribeRequest, ack?: Ack<{ ok: true } | { ok: false; error: string }>) => void;
  unsubscribe: (req: SubscribeRequest) => void;
  'live:watch': (req: LiveWatch, ack?: Ack<LiveAck>) => void;
  'live:unwatch': (req: LiveWatch) => void;
  watchGhosts: (req: { cluster: ClusterId }, ack?: SimAck) => void;
  unwatchGhosts: (req: { cluster: ClusterId }) => void;
  watchTermination: (req: { cluster: ClusterId; podUid: string }, ack?: SimAck) => void;
  unwatchTermination: (req: { cluster: ClusterId; podUid: string }) => void;
}

/** Every event the server sends. */
export interface ServerToClientEvents {
  snapshot: (s: Snapshot<NodeView | PodView>) => void;
  delta: (d: Delta<NodeView | PodView>) => void;
  health: (h: ClusterHealth) => void;
  'subscribe-error': (message: string) => void;
  'live:changed': (c: LiveChanged) => void;
  ghosts: (m: GhostsMessage) => void;
  terminationStep: (m: TerminationStepMessage) => void;
  'session:ended': (m: { why: string }) => void;
}

export type { Ghost };
