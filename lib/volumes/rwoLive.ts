// The volumes page's live channel (socket.io): a browser joins a cluster's volumes room and
// refetches volumes.* when told something it shows has changed. Both sides import this.

export const VolumeEvents = {
  watch: 'volumes:watch',
  unwatch: 'volumes:unwatch',
  changed: 'volumes:changed',
} as const;

export const volumesRoom = (cluster: string) => `${cluster}/volumes`;

/** server -> client, coalesced */
export interface VolumesChanged {
  cluster: string;
}

/** The reply to a watch; a server without the feed gives none (the page then refetches on a timer). */
export type VolumesWatchAck = { ok: true } | { ok: false; error: string };
