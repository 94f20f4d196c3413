// The volumes topic of the live channel: signals a cluster's volumes page when anything the RWO
// attach view reads changes — PVs, PVCs, VolumeAttachments, attach/detach events, pods with
// claims, a node's readiness or taints, and on the embedded cluster its processes and storage
// fences — coalesced (at most every 250 ms), so the page refetches volumes.* over tRPC.
// Nothing polls.
import type { NodeView, PodView } from '../../lib/console/protocol.js';
import type { EventView } from '../../lib/console/views.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Feed, LiveChannel } from './live.js';
import { followTruth, type InfraStream, type InfraStreamEvent } from '../kube/infraStream.js';

const VOLUME_EVENT = /Attach|Detach|Mount/;
const TRUTH_EVENTS = new Set(['storage-fenced', 'storage-unfenced', 'power-off', 'meteor']);

/** A node changes the view through its readiness and taints, not through each heartbeat. */
const nodeSignature = (n: NodeView) => `${n.ready}|${n.taints.map((t) => `${t.key}:${t.effect}`).join(',')}`;

function truthChanged(e: InfraStreamEvent): boolean {
  if (TRUTH_EVENTS.has(e.type)) return true;
  const p = e.process as { volumes?: unknown[] } | undefined;
  return (e.type === 'process-started' || e.type === 'process-stopped') && !!p?.volumes?.length;
}

export class VolumesFeed {
  private readonly feed: Feed;
  private readonly streams: InfraStream[] = [];

  constructor(channel: LiveChannel, clusters: Map<string, ClusterConnection>, coalesceMs = 250) {
    this.feed = channel.feed({ topic: 'volumes', clusters: clusters.keys(), coalesceMs });
    for (const conn of clusters.values()) this.follow(conn);
  }

  private follow(conn: ClusterConnection) {
    const mark = () => this.feed.mark(conn.id);
    const any = { add: mark, update: mark, delete: mark };
    const { persistentVolumes, persistentVolumeClaims, volumeAttachments, events } = conn.informers;
    persistentVolumes.on(any);
    persistentVolumeClaims.on(any);
    volumeAttachments.on(any);
    const volumeEvent = (e: EventView) => VOLUME_EVENT.test(e.reason ?? '') && mark();
    events.on({ add: volumeEvent, update: volumeEvent });
    this.followCache(conn, mark);
    if (!conn.spec.infra) return;
    this.streams.push(followTruth(conn.spec.infra, truthChanged, mark));
  }

  private followCache(conn: ClusterConnection, mark: () => void) {
    const claimPods = new Set<string>();
    const nodes = new Map<string, string>();
    conn.cache.onChange((kind, key, view) => {
      if (kind === 'pods') {
        const had = claimPods.has(key);
        const has = !!(view as PodView | undefined)?.claims.length;
        if (has) claimPods.add(key);
        else claimPods.delete(key);
        if (had || has) mark();
        return;
      }
      const sig = view ? nodeSignature(view as NodeView) : '';
      if (nodes.get(key) === sig) return;
      if (sig) nodes.set(key, sig);
      else nodes.delete(key);
      mark();
    });
  }

  stop() {
    this.feed.stop();
    for (const s of this.streams) s.stop();
  }
}
