// The instance-IDs page's live channel (socket.io): a browser joins a cluster's room and
// refetches instanceIds.* when told that a map, a tracked workload or one of its pods changed.
// Both sides import this.

export const InstanceIdEvents = {
  watch: 'instance-ids:watch',
  unwatch: 'instance-ids:unwatch',
  changed: 'instance-ids:changed',
} as const;

export const instanceIdsRoom = (cluster: string) => `${cluster}/instance-ids`;

/** server -> client, coalesced */
export interface InstanceIdsChanged {
  cluster: string;
}

/** The reply to a watch; a server without the feed gives none (the page then refetches on a timer). */
export type InstanceIdsWatchAck = { ok: true } | { ok: false; error: string };
