// The instance-ID work of one console beside its endpoint: on every replica, the entry of a pod
// its kubelet was seen to remove dropped at once; on the leader of each cluster Palisade may
// write to, the collector loop; beside the embedded cluster, the loop that tells its simulated
// pods the endpoint's URL (known once the console listens). startConsole makes the endpoint and
// them here, and adds the loops (server/loops.ts).
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger } from '../log.js';
import { type LoopEntry, loopsOn } from '../loops.js';
import { collectOnDeparture, InstanceIdCollector } from './collector.js';
import type { CasOptions } from './cas.js';
import { InstanceIdEndpoint } from './endpoint.js';
import { EndpointPublisher } from './publish.js';

export function instanceIdService(o: {
  clusters: Map<string, ClusterConnection>;
  /** the compare-and-swap's options (palisade.yaml instanceIds) */
  cas?: CasOptions;
  /** palisade.yaml instanceIds.namespaces */
  namespaces: readonly string[];
  sweepMs?: number;
  logger: Logger;
}) {
  const endpoint = new InstanceIdEndpoint(o.clusters, {
    cas: { ...o.cas, namespaces: o.namespaces },
    logger: o.logger,
  });
  const writable = [...o.clusters.values()].filter((conn) => conn.spec.mode !== 'read-only');
  const loops: LoopEntry[] = [];
  for (const conn of writable) {
    // every replica writes down at once what only its watch saw: a holder its kubelet removed
    collectOnDeparture(
      conn,
      endpoint.cas.get(conn.id)!,
      component('instance-ids', { cluster: conn.id }, o.logger),
    );
    const logger = o.logger.child({ cluster: conn.id });
    const collector = new InstanceIdCollector(conn, logger, o.sweepMs, o.namespaces);
    loops.push(...loopsOn('instance-ids', conn.spec, [collector.loop]));
  }
  return {
    /** the endpoint the console serves on /api/instance-ids */
    endpoint,
    /** the collectors, one per cluster Palisade may write to */
    loops,
    /** the loops that tell the embedded cluster's simulated pods where the endpoint is (the console's URL) */
    publishers(url: string): LoopEntry[] {
      return writable
        .filter((c) => c.spec.infra)
        .flatMap((conn) =>
          loopsOn('instance-ids', conn.spec, [
            new EndpointPublisher(conn, url, component('instance-ids', {}, o.logger)).loop,
          ]),
        );
    },
  };
}
