// The fencing controller's own watches: Nodes (with labels, which the console's trimmed views
// drop), node Leases, FencePolicies and NodeFences. Invalid custom objects are kept as errors so
// the controller can say why it ignores them instead of crashing on them.
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
import { type InformerTuning, SupervisedInformer } from '../kube/informer.js';
import type { Logger } from '../log.js';
import { type LeaseFacts, leaseFacts, nodeFacts, type NodeFactsWithoutLease } from './facts.js';

export type Checked<T> = { name: string; value?: T; error?: string };

function customInformer<T>(
  kc: k8s.KubeConfig,
  plural: string,
  parse: (o: unknown) => { ok: true; value: T } | { ok: false; error: string },
  tuning?: InformerTuning,
  logger?: Logger,
) {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  return new SupervisedInformer<k8s.KubernetesObject, Checked<T>>(
    kc,
    {
      kind: plural,
      path: `/apis/${GROUP}/${VERSION}/${plural}`,
      list: (p) => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural, ...p }) as never,
      project: (raw) => {
        const r = parse(raw);
        const name = raw.metadata?.name ?? '';
        return r.ok ? { name, value: r.value } : { name, error: r.error };
      },
    },
    tuning,
    logger,
  );
}

/** `logger`: where the informers' lines go (with context such as { cluster }) */
export function fencingInformers(kc: k8s.KubeConfig, tuning?: InformerTuning, logger?: Logger) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  return {
    nodes: new SupervisedInformer<k8s.V1Node, NodeFactsWithoutLease>(
      kc,
      { kind: 'nodes', path: '/api/v1/nodes', list: (p) => core.listNode(p), project: nodeFacts },
      tuning,
      logger,
    ),
    leases: new SupervisedInformer<k8s.V1Lease, LeaseFacts>(
      kc,
      {
        kind: 'leases',
        path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
        list: (p) => coordination.listNamespacedLease({ namespace: 'kube-node-lease', ...p }),
        project: leaseFacts,
      },
      tuning,
      logger,
    ),
    policies: customInformer<FencePolicy>(kc, POLICY_PLURAL, parseFencePolicy, tuning, logger),
    fences: customInformer<NodeFence>(kc, FENCE_PLURAL, parseNodeFence, tuning, logger),
  };
}
export type FencingInformers = ReturnType<typeof fencingInformers>;
