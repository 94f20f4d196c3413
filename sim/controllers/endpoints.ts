// EndpointSlice controller (simplified): one slice per Service with a selector, listing
// every selected pod that has an IP, with ready/serving/terminating conditions. A pod
// that starts terminating flips to ready=false (out of the load balancer) while it may
// still be serving, in parallel with its preStop hook and SIGTERM (seed 003, step 5).
import type * as k8s from '@kubernetes/client-node';
import {
  hasSelector,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  selects,
  serviceEndpoints,
  slicePorts,
} from '../../lib/workloads/endpoints.js';
import { canonicalJson } from '../../lib/workloads/hash.js';
import { ownerReferenceTo } from '../../lib/workloads/pods.js';
import type { ControllerContext } from './runtime/context.js';
import { LABEL_ZONE } from './runtime/conventions.js';
import { keyOf, splitKey, tolerate, WorkloadController } from './workloadController.js';

type Slice = k8s.V1EndpointSlice;

export class EndpointSliceController extends WorkloadController {
  readonly name = 'endpointslice';

  protected watch(ctx: ControllerContext) {
    const { services, pods, endpointSlices, nodes } = ctx.informers;
    const self = (s: k8s.V1Service) => this.enqueue(keyOf(s));
    services.on({ add: self, update: self, delete: self });
    const selecting = (p: k8s.V1Pod, old?: k8s.V1Pod) => {
      for (const s of services.list(p.metadata?.namespace))
        if (selects(s, p.metadata?.labels) || (old && selects(s, old.metadata?.labels))) self(s);
    };
    pods.on({ add: (p) => selecting(p), update: selecting, delete: (p) => selecting(p) });
    // someone else changed or removed one of our slices: put it back
    const owner = (s: Slice) => {
      const svc = s.metadata?.labels?.[LABEL_SERVICE_NAME];
      if (svc && s.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGED_BY)
        this.enqueue(`${s.metadata?.namespace}/${svc}`);
    };
    endpointSlices.on({ update: owner, delete: owner });
    void nodes; // zones are read from the node cache
  }

  protected async sync(key: string) {
    const { namespace, name } = splitKey(key);
    const svc = this.ctx.informers.services.get(name, namespace);
    if (!svc) return; // the garbage collector removes its slices
    const ours = this.ctx.informers.endpointSlices
      .list(namespace)
      .filter(
        (s) =>
          s.metadata?.labels?.[LABEL_SERVICE_NAME] === name &&
          s.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGED_BY,
      );
    // without a selector we manage nothing, and (as kube-controller-manager does) leave the
    // slices we made before in place; with one, we keep exactly the slice named after the service
    if (!hasSelector(svc)) return;
    const keep = name;
    for (const s of ours.filter((x) => x.metadata?.name !== keep))
      await tolerate(404, () =>
        this.ctx.clients.discovery.deleteNamespacedEndpointSlice({ name: s.metadata!.name!, namespace }),
      );
    const desired = this.desiredSlice(svc);
    const current = ours.find((s) => s.metadata?.name === name);
    if (!current) {
      await tolerate(409, () =>
        this.ctx.clients.discovery.createNamespacedEndpointSlice({ namespace, body: desired }),
      );
      return;
    }
    if (sameSlice(current, desired)) return;
    await this.ctx.clients.discovery.replaceNamespacedEndpointSlice({
      name,
      namespace,
      body: {
        ...current,
        metadata: { ...current.metadata, labels: desired.metadata!.labels },
        endpoints: desired.endpoints,
        ports: desired.ports,
      },
    });
  }

  private desiredSlice(svc: k8s.V1Service): Slice {
    const { name, namespace } = svc.metadata as { name: string; namespace: string };
    const pods = this.ctx.informers.pods.list(namespace).filter((p) => selects(svc, p.metadata?.labels));
    const zoneOf = (node?: string) =>
      node ? this.ctx.informers.nodes.get(node)?.metadata?.labels?.[LABEL_ZONE] : undefined;
    return {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        // one slice per service, so a deterministic name (the real one uses generateName)
        name,
        namespace,
        labels: {
          ...(svc.metadata?.labels ?? {}),
          [LABEL_SERVICE_NAME]: name,
          [LABEL_MANAGED_BY]: MANAGED_BY,
        },
        ownerReferences: [ownerReferenceTo(svc, 'v1', 'Service')],
      },
      addressType: 'IPv4',
      endpoints: serviceEndpoints(svc, pods, zoneOf),
      ports: slicePorts(svc, pods),
    };
  }
}

function sameSlice(a: Slice, b: Slice): boolean {
  return (
    canonicalJson(a.endpoints ?? []) === canonicalJson(b.endpoints ?? []) &&
    canonicalJson(a.ports ?? []) === canonicalJson(b.ports ?? []) &&
    canonicalJson(a.metadata?.labels ?? {}) === canonicalJson(b.metadata?.labels ?? {})
  );
}
