// Deletion protection's loops for one core cluster and its cells, as startProtection makes
// them (server/protection/service.ts adds them to the core cluster's manager): the namespace
// labels (once per cell cluster), an aggregator and an update trigger per cell, the generator.
import type { z } from 'zod';
import type { protectionSchema } from '../config/schema.js';
import type { ClusterSpec } from '../kube/connection.js';
import type { InformerRegistry } from '../kube/informer.js';
import type { Logger } from '../log.js';
import { Aggregator } from './aggregator.js';
import { Generator } from './generator.js';
import type { ProtectionMetrics } from './metrics.js';
import { NamespaceLabels } from './namespaceLabels.js';
import type { ProtectorStore } from './protectors.js';
import { UpdateTrigger } from './updateTrigger.js';

export interface CellSpec {
  id: string;
  cluster: ClusterSpec;
}

export function protectionLoops(o: {
  cfg: z.output<typeof protectionSchema>;
  core: ClusterSpec;
  cells: CellSpec[];
  /** each cluster's shared watches */
  registryOf: (c: ClusterSpec) => InformerRegistry;
  store: ProtectorStore;
  metrics: ProtectionMetrics;
  root: Logger;
}) {
  const { cfg, core, cells: cellSpecs, registryOf, store, metrics, root } = o;
  const onCore = root.child({ cluster: core.id });
  // each cell's cluster once: its protected namespaces labelled, its webhook enforced
  const cellClusters = [...new Map(cellSpecs.map((c) => [c.cluster.id, c])).values()];
  const namespaceLabels = new NamespaceLabels({
    clusters: cellClusters.map((c) => ({
      id: c.cluster.id,
      kc: c.cluster.kc,
      registry: registryOf(c.cluster),
    })),
    store,
    logger: onCore,
  });
  const aggregators = cellSpecs.map(
    (c) =>
      new Aggregator({
        cellId: c.id,
        cell: registryOf(c.cluster),
        coreKc: core.kc,
        store,
        metrics,
        protectorSelector: cfg.aggregator.protectorSelector,
        logger: root.child({ cluster: c.cluster.id }),
        enforced: (ns) => namespaceLabels.enforced(c.cluster.id, ns),
      }),
  );
  const triggers = cfg.aggregator.updateTrigger.enabled
    ? cellSpecs.map(
        (c) =>
          new UpdateTrigger({
            cellId: c.id,
            kc: c.cluster.kc,
            namespace: cfg.aggregator.updateTrigger.namespace,
            intervalMillis: cfg.aggregator.updateTrigger.intervalMillis,
            metrics,
            logger: root.child({ cluster: c.cluster.id }),
          }),
      )
    : [];
  const generator = cfg.generator.enabled
    ? new Generator(registryOf(core), store, metrics, cfg.generator.workloadSelector, onCore)
    : undefined;
  return { cellClusters, namespaceLabels, aggregators, triggers, generator };
}
