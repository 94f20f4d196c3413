// The fencing controller's writes, all through the Kubernetes API with optimistic concurrency:
// NodeFence status by resourceVersion (a 409 means someone else moved the fence: re-read and
// decide again), Node taints by resourceVersion, force deletes with uid + resourceVersion
// preconditions, and one Event per step on the Node so `kubectl describe node` tells the story.
import * as k8s from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../../lib/kube/errorText.js';
import { microTime } from '../../lib/protection/buckets.js';
import {
  FENCE_PLURAL,
  FENCING_COMPONENT,
  GROUP,
  type NodeFence,
  nodeFenceObject,
  parseNodeFence,
  VERSION,
} from '../../lib/fencing/types.js';
import { nodeFacts } from './facts.js';
import { leaseFacts } from './facts.js';

export class FencingApi {
  readonly core: k8s.CoreV1Api;
  readonly storage: k8s.StorageV1Api;
  readonly custom: k8s.CustomObjectsApi;
  private readonly coordination: k8s.CoordinationV1Api;

  constructor(readonly kc: k8s.KubeConfig) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.storage = kc.makeApiClient(k8s.StorageV1Api);
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  }

  /** The Node and its Lease, read live (never from a cache) before an irreversible step. */
  async liveNode(name: string) {
    const node = await this.core.readNode({ name }).catch((e) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (!node) return undefined;
    const lease = await this.coordination
      .readNamespacedLease({ name, namespace: 'kube-node-lease' })
      .catch((e) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
    return { node, facts: nodeFacts(node), lease: lease && leaseFacts(lease) };
  }

  async readFence(name: string): Promise<NodeFence | undefined> {
    try {
      const o = await this.custom.getClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: FENCE_PLURAL,
        name,
      });
      const p = parseNodeFence(o);
      if (!p.ok) throw new Error(`NodeFence ${name}: ${p.error}`);
      return p.value;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async createFence(node: string, policy: string): Promise<NodeFence> {
    const o = await this.custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: FENCE_PLURAL,
      body: nodeFenceObject(node, { policy }),
    });
    const p = parseNodeFence(o);
    if (!p.ok) throw new Error(`NodeFence ${node} as created: ${p.error}`);
    return p.value;
  }

  async deleteFence(f: NodeFence) {
    await this.custom.deleteClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: FENCE_PLURAL,
      name: f.metadata.name,
      body: { preconditions: { uid: f.metadata.uid, resourceVersion: f.metadata.resourceVersion } },
    });
  }

  /** Replace the status, conditional on the resourceVersion the fence was read at. */
  async writeStatus(f: NodeFence): Promise<NodeFence> {
    const o = await this.custom.replaceClusterCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      plural: FENCE_PLURAL,
      name: f.metadata.name,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'NodeFence',
        metadata: { name: f.metadata.name, resourceVersion: f.metadata.resourceVersion },
        spec: f.spec,
        status: f.status,
      },
    });
    const p = parseNodeFence(o);
    if (!p.ok) throw new Error(`NodeFence ${f.metadata.name} as written: ${p.error}`);
    return p.value;
  }

  /** A Kubernetes Event on the Node: who (Palisade's fencing controller), what and why. */
  async event(node: { name: string; uid?: string }, reason: string, message: string, warning = false) {
    const at = Date.now();
    const body: k8s.CoreV1Event = {
      metadata: {
        name: `${node.name}.palisade-fence-${at.toString(36)}-${Math.random().toString(36).slice(2, 6)}`,
        namespace: 'default',
      },
      involvedObject: {
        kind: 'Node',
        apiVersion: 'v1',
        name: node.name,
        ...(node.uid ? { uid: node.uid } : {}),
      },
      reason,
      message,
      type: warning ? 'Warning' : 'Normal',
      source: { component: FENCING_COMPONENT },
      reportingComponent: FENCING_COMPONENT,
      reportingInstance: FENCING_COMPONENT,
      action: reason,
      firstTimestamp: new Date(at),
      lastTimestamp: new Date(at),
      // a metav1.MicroTime: kube-apiserver wants exactly six fractional digits
      eventTime: microTime(at) as unknown as k8s.V1MicroTime,
      count: 1,
    };
    // a busy API server may time out a create it then applies: tried again under the same name
    // (once), an AlreadyExists means it was recorded (x31: an Event of a fence never came)
    for (let attempt = 1; ; attempt++) {
      try {
        await this.core.createNamespacedEvent({ namespace: 'default', body });
        return;
      } catch (e) {
        if (isConflict(e)) return;
        if (attempt >= EVENT_ATTEMPTS) throw e;
        await new Promise((r) => setTimeout(r, EVENT_RETRY_MS));
      }
    }
  }
}

const EVENT_ATTEMPTS = 2;
const EVENT_RETRY_MS = 500;
