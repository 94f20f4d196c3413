// Beside the embedded cluster only: tells its simulated pods where Palisade's instance-ID
// endpoint is, as an operator tells real pods (a URL in their configuration). For every
// namespace holding a workload labelled palisade.dev/instance-ids-enabled=true, Palisade writes
// the ConfigMap palisade-instance-ids (key url) that the scenario's pod templates read their
// PALISADE_INSTANCE_IDS_URL from; pods created before it exists wait in
// CreateContainerConfigError, as on a real kubelet, and start once it is there.
import * as k8s from '@kubernetes/client-node';
import { INSTANCE_IDS_CONFIGMAP, INSTANCE_IDS_CONFIGMAP_KEY } from '../../lib/instanceIds/types.js';
import type { WorkloadView } from '../../lib/console/views.js';
import { isConflict, errorText } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Logger } from '../log.js';

const RETRY_MS = 2_000;

export class EndpointPublisher {
  /** namespace -> done or in flight */
  private readonly published = new Set<string>();
  private readonly core: k8s.CoreV1Api;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly conn: ClusterConnection,
    private readonly url: string,
    private readonly log: Logger,
  ) {
    this.core = conn.spec.kc.makeApiClient(k8s.CoreV1Api);
    const seen = (w: WorkloadView) => w.instanceIdsEnabled && this.publish(w.namespace);
    const handler = { add: seen, update: seen };
    conn.informers.deployments.on(handler);
    conn.informers.statefulSets.on(handler);
    for (const w of [...conn.informers.deployments.values(), ...conn.informers.statefulSets.values()])
      seen(w);
  }

  stop() {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
  }

  private publish(namespace: string) {
    if (this.stopped || this.published.has(namespace)) return;
    this.published.add(namespace);
    void this.write(namespace).catch((e) => {
      this.published.delete(namespace);
      this.log.warn(
        { cluster: this.conn.id, namespace, err: errorText(e) },
        'could not write the instance-ID endpoint ConfigMap: trying again',
      );
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.publish(namespace);
      }, RETRY_MS);
      this.timers.add(t);
    });
  }

  private async write(namespace: string) {
    const body: k8s.V1ConfigMap = {
      metadata: {
        name: INSTANCE_IDS_CONFIGMAP,
        namespace,
        labels: { 'app.kubernetes.io/managed-by': 'palisade' },
      },
      data: { [INSTANCE_IDS_CONFIGMAP_KEY]: this.url },
    };
    try {
      await this.core.createNamespacedConfigMap({ namespace, body });
    } catch (e) {
      if (!isConflict(e)) throw e;
      // there already: written by this console, another one, or an earlier one now gone. A
      // console that answers keeps it (its pods know it); a dead address is taken over
      const current = await this.core.readNamespacedConfigMap({ namespace, name: INSTANCE_IDS_CONFIGMAP });
      const there = current.data?.[INSTANCE_IDS_CONFIGMAP_KEY];
      if (there === this.url) return;
      if (there && (await answers(there))) {
        this.log.info(
          { cluster: this.conn.id, namespace, url: there },
          'another console publishes the instance-ID endpoint here: left as it is',
        );
        return;
      }
      await this.core.replaceNamespacedConfigMap({
        namespace,
        name: INSTANCE_IDS_CONFIGMAP,
        body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } },
      });
    }
    this.log.info({ cluster: this.conn.id, namespace, url: this.url }, 'instance-ID endpoint published');
  }
}

/** Does a console answer at this address (its /healthz)? */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}
