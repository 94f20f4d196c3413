// The instance-ID work of one console beside its endpoint: on every replica, the entry of a pod
// its kubelet was seen to remove dropped at once; on the leader of each cluster Palisade may
// write to, the collector loop; beside the embedded cluster, the loop that tells its simulated
// pods the endpoint's URL (known once the console listens). startConsole makes them here.
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger } from '../log.js';
import type { Manager } from '../runtime/manager.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import { collectOnDeparture, InstanceIdCollector } from './collector.js';
import type { InstanceIdEndpoint } from './endpoint.js';
import { EndpointPublisher } from './publish.js';

export function instanceIdLoops(o: {
  clusters: ReadonlyMap<string, ClusterConnection>;
  runtime: ControllerRuntime;
  endpoint: InstanceIdEndpoint;
  /** palisade.yaml instanceIds.namespaces */
  namespaces: readonly string[];
  sweepMs?: number;
  logger: Logger;
}) {
  const writable = [...o.clusters.values()].filter((conn) => conn.spec.mode !== 'read-only');
  const added: { loop: EndpointPublisher['loop'] | InstanceIdCollector['loop']; manager: Manager }[] = [];
  const add = (conn: ClusterConnection, loop: (typeof added)[number]['loop']) => {
    const manager = o.runtime.manager(conn.spec);
    manager.add(loop);
    added.push({ loop, manager });
  };
  for (const conn of writable) {
    // every replica writes down at once what only its watch saw: a holder its kubelet removed
    collectOnDeparture(
      conn,
      o.endpoint.cas.get(conn.id)!,
      component('instance-ids', { cluster: conn.id }, o.logger),
    );
    const logger = o.logger.child({ cluster: conn.id });
    add(conn, new InstanceIdCollector(conn, logger, o.sweepMs, o.namespaces).loop);
  }
  return {
    /** the embedded cluster's simulated pods learn where the endpoint is (the console's URL) */
    publish(url: string) {
      for (const conn of writable.filter((c) => c.spec.infra))
        add(conn, new EndpointPublisher(conn, url, component('instance-ids', {}, o.logger)).loop);
    },
    /** every loop taken off its manager (each stops now) */
    stop() {
      for (const { loop, manager } of added.splice(0)) manager.remove(loop);
    },
  };
}
