// Each fault and recovery of the simulated infrastructure as a Kubernetes Event on its Node
// (lib/console/infraEvents.ts), written by the embedded cluster through the API as a cloud
// provider would: one at a time, in order; a write that fails is dropped (the simulation goes on).
import * as k8s from '@kubernetes/client-node';
import { INFRA_COMPONENT, INFRA_EVENTS } from '../../lib/console/infraEvents.js';
import type { GroundTruth, InfraEvent } from './groundTruth.js';

export function recordInfraEvents(kc: k8s.KubeConfig, truth: GroundTruth): () => void {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let chain: Promise<unknown> = Promise.resolve();
  let seq = 0;
  const onEvent = (e: InfraEvent) => {
    const kind = INFRA_EVENTS[e.type];
    if (!kind || !e.node) return;
    const node = e.node;
    const at = new Date(e.at);
    const body: k8s.CoreV1Event = {
      metadata: { name: `${node}.infra-${e.at.toString(36)}-${(seq++).toString(36)}`, namespace: 'default' },
      involvedObject: { kind: 'Node', apiVersion: 'v1', name: node },
      reason: kind.reason,
      message: `node ${node} ${kind.what} (embedded infrastructure)`,
      type: kind.warning ? 'Warning' : 'Normal',
      source: { component: INFRA_COMPONENT },
      reportingComponent: INFRA_COMPONENT,
      reportingInstance: INFRA_COMPONENT,
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    };
    chain = chain.then(() =>
      core.createNamespacedEvent({ namespace: 'default', body }).catch(() => undefined),
    );
  };
  truth.on('event', onEvent);
  return () => truth.off('event', onEvent);
}
