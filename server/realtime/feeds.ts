// Every live page's feed on the one live channel (lib/console/live.ts), and the two socket.io
// hubs beside it (the cluster state's snapshot/delta, the simulation's controls): what the
// console starts once its sockets are bound, and stops together.
import type { ClusterId } from '../../lib/console/protocol.js';
import type { ConsoleAuth } from '../auth/service.js';
import { bindSockets } from '../auth/sockets.js';
import type { FencingService } from '../fencing/service.js';
import { IncidentFeed } from '../incident/feed.js';
import type { IncidentService } from '../incident/service.js';
import { InstanceIdsFeed } from '../instanceIds/feed.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { ProtectionService } from '../protection/service.js';
import { followAudit } from './audit.js';
import { followFencing } from './fencing.js';
import { type HubOptions, RealtimeHub } from './hub.js';
import { LiveChannel } from './live.js';
import { followProtection } from './protection.js';
import { SimulationHub } from './simulation.js';
import type { LiveServer } from './sockets.js';
import { VolumesFeed } from './volumes.js';

export interface LiveFeeds {
  /** the history recorder wrote Events of this cluster (audit: some were Palisade's own steps) */
  recorded(cluster: ClusterId, audit: boolean): void;
  stop(): void;
}

export function startLiveFeeds(o: {
  io: LiveServer;
  clusters: Map<ClusterId, ClusterConnection>;
  auth: ConsoleAuth;
  protection?: ProtectionService;
  fencing?: FencingService;
  incident: IncidentService;
  hub?: HubOptions;
}): LiveFeeds {
  const { io, clusters, auth, protection, fencing } = o;
  bindSockets(io, auth);
  const hub = new RealtimeHub(io, clusters, auth, o.hub);
  const sim = new SimulationHub(io, clusters.values(), auth.access);
  const live = new LiveChannel(io);
  const protectionFeed = protection && followProtection(live, protection, auth.access, [...clusters.keys()]);
  if (fencing) followFencing(live, fencing);
  const volumesFeed = new VolumesFeed(live, clusters);
  const auditFeed = followAudit(live, [...clusters.values()]);
  // the timeline refetches; Palisade's fence steps reach the Audit page as people's actions do
  const historyFeed = live.feed({ topic: 'history', clusters: clusters.keys(), coalesceMs: 500 });
  const incidentFeed = new IncidentFeed(live, [...clusters.values()], o.incident, fencing);
  const instanceIdsFeed = new InstanceIdsFeed(live, clusters);
  return {
    recorded(cluster, audit) {
      historyFeed.mark(cluster);
      if (audit) auditFeed.mark(cluster);
    },
    stop() {
      instanceIdsFeed.stop();
      protectionFeed?.stop();
      volumesFeed.stop();
      incidentFeed.stop();
      live.stop();
      hub.stop();
      sim.stop();
    },
  };
}
