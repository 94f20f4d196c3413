// The fencing controller's projections of the cluster's shared watches: Nodes (with labels,
// which the console's trimmed views drop) and node Leases — the same watches the console's views
// read — and FencePolicies and NodeFences. Invalid custom objects are kept as errors so the
// controller can say why it ignores them instead of crashing on them.
import * as k8s from '@kubernetes/client-node';
import {
  FENCE_PLURAL,
  type FencePolicy,
  GROUP,
  type NodeFence,
  parseFencePolicy,
  parseNodeFence,
  POLICY_PLURAL,
  VERSION,
} from '../../lib/fencing/types.js';
import type { InformerRegistry } from '../kube/informer.js';
import { type LeaseFacts, leaseFacts, nodeFacts, type NodeFactsWithoutLease } from './facts.js';

export type Checked<T> = { name: string; value?: T; error?: string };

function customInformer<T>(
  registry: InformerRegistry,
  plural: string,
  parse: (o: unknown) => { ok: true; value: T } | { ok: false; error: string },
) {
  const custom = registry.kc.makeApiClient(k8s.CustomObjectsApi);
  return registry.informer<k8s.KubernetesObject, Checked<T>>({
    kind: plural,
    path: `/apis/${GROUP}/${VERSION}/${plural}`,
    list: (p) => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural, ...p }) as never,
    project: (raw) => {
      const r = parse(raw);
      const name = raw.metadata?.name ?? '';
      return r.ok ? { name, value: r.value } : { name, error: r.error };
    },
  });
}

/** Projections of the cluster's shared watches (the console's connection's registry). */
export function fencingInformers(registry: InformerRegistry) {
  const core = registry.kc.makeApiClient(k8s.CoreV1Api);
  const coordination = registry.kc.makeApiClient(k8s.CoordinationV1Api);
  return {
    nodes: registry.informer<k8s.V1Node, NodeFactsWithoutLease>({
      kind: 'nodes',
      path: '/api/v1/nodes',
      list: (p) => core.listNode(p),
      project: nodeFacts,
    }),
    leases: registry.informer<k8s.V1Lease, LeaseFacts>({
      kind: 'leases',
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      list: (p) => coordination.listNamespacedLease({ namespace: 'kube-node-lease', ...p }),
      project: leaseFacts,
    }),
    policies: customInformer<FencePolicy>(registry, POLICY_PLURAL, parseFencePolicy),
    fences: customInformer<NodeFence>(registry, FENCE_PLURAL, parseNodeFence),
  };
}
export type FencingInformers = ReturnType<typeof fencingInformers>;
