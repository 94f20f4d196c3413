// The instance-ID work of one console beside its endpoint: on every replica, the entry of a pod
// its kubelet was seen to remove dropped at once; on the leader of each cluster Palisade may
// write to, the collector loop; beside the embedded cluster, the loop that tells its simulated
// pods the endpoint's URL (known once the console listens). startConsole makes them here and
// adds the loops (server/loops.ts).
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger } from '../log.js';
import { type LoopEntry, loopsOn } from '../loops.js';
import { collectOnDeparture, InstanceIdCollector } from './collector.js';
import type { InstanceIdEndpoint } from './endpoint.js';
import { EndpointPublisher } from './publish.js';

export function instanceIdLoops(o: {
  clusters: ReadonlyMap<string, ClusterConnection>;
  endpoint: InstanceIdEndpoint;
  /** palisade.yaml instanceIds.namespaces */
  namespaces: readonly string[];
  sweepMs?: number;
  logger: Logger;
}) {
  const writable = [...o.clusters.values()].filter((conn) => conn.spec.mode !== 'read-only');
  const loops: LoopEntry[] = [];
  for (const conn of writable) {
    // every replica writes down at once what only its watch saw: a holder its kubelet removed
    collectOnDeparture(
      conn,
      o.endpoint.cas.get(conn.id)!,
      component('instance-ids', { cluster: conn.id }, o.logger),
    );
    const logger = o.logger.child({ cluster: conn.id });
    const collector = new InstanceIdCollector(conn, logger, o.sweepMs, o.namespaces);
    loops.push(...loopsOn('instance-ids', conn.spec, [collector.loop]));
  }
  return {
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
