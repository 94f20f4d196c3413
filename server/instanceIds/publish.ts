// Beside the embedded cluster only: tells its simulated pods where Palisade's instance-ID
// endpoint is, as an operator tells real pods (a URL in their configuration). For every
// namespace holding a workload labelled palisade.dev/instance-ids-enabled=true, Palisade writes
// the ConfigMap palisade-instance-ids (key url) that the scenario's pod templates read their
// PALISADE_INSTANCE_IDS_URL from; pods created before it exists wait in
// CreateContainerConfigError, as on a real kubelet, and start once it is there. It writes only
// while this replica leads (the controller runtime), with the term's kubeconfig.
import * as k8s from '@kubernetes/client-node';
import { INSTANCE_IDS_CONFIGMAP, INSTANCE_IDS_CONFIGMAP_KEY } from '../../lib/instanceIds/types.js';
import type { WorkloadView } from '../../lib/console/views.js';
import { isConflict, errorText } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import type { Logger } from '../log.js';
import { done } from '../../lib/runtime/result.js';
import { type Change, Loop } from '../runtime/loop.js';
import { nameKey } from '../../lib/runtime/keys.js';

/**
 * A loop on the controller runtime (leader only, keys = namespaces, for opted-in workloads): every namespace holding an
 * opted-in workload gets the ConfigMap once per term; a failed write backs off and tries again.
 */
export class EndpointPublisher {
  readonly loop: Loop<string>;
  /** namespaces written in this term */
  private readonly published = new Set<string>();
  private core: k8s.CoreV1Api | undefined;

  constructor(
    private readonly conn: ClusterConnection,
    private readonly url: string,
    private readonly log: Logger,
  ) {
    // a workload opting in (added, or labelled later) names its namespace
    const optedIn = {
      keys: (w: WorkloadView, change: Change) => change !== 'delete' && w.instanceIdsEnabled && w.namespace,
    };
    this.loop = new Loop<string>({
      name: 'instance-id-endpoint',
      key: nameKey,
      for: [
        { source: conn.informers.deployments, ...optedIn },
        { source: conn.informers.statefulSets, ...optedIn },
      ],
      begin: (term, loop) => {
        this.core = term.kc(conn.spec.kc).makeApiClient(k8s.CoreV1Api);
        this.published.clear();
        for (const ns of this.namespaces()) loop.enqueue(ns);
      },
      reconcile: (namespace) => this.publish(namespace),
      end: () => {
        this.core = undefined;
      },
      backoff: { baseMs: 2_000, maxMs: 30_000 },
      logger: log,
    });
  }

  /** The namespaces holding an opted-in workload now. */
  private namespaces(): Set<string> {
    const { deployments, statefulSets } = this.conn.informers;
    return new Set(
      [...deployments.values(), ...statefulSets.values()]
        .filter((w) => w.instanceIdsEnabled)
        .map((w) => w.namespace),
    );
  }

  private async publish(namespace: string) {
    if (this.published.has(namespace) || !this.core) return done;
    try {
      await this.write(this.core, namespace);
    } catch (e) {
      this.log.warn(
        { cluster: this.conn.id, namespace, err: errorText(e) },
        'could not write the instance-ID endpoint ConfigMap: trying again',
      );
      throw e;
    }
    this.published.add(namespace);
    return done;
  }

  private async write(core: k8s.CoreV1Api, namespace: string) {
    const body: k8s.V1ConfigMap = {
      metadata: {
        name: INSTANCE_IDS_CONFIGMAP,
        namespace,
        labels: { 'app.kubernetes.io/managed-by': 'palisade' },
      },
      data: { [INSTANCE_IDS_CONFIGMAP_KEY]: this.url },
    };
    try {
      await core.createNamespacedConfigMap({ namespace, body });
    } catch (e) {
      if (!isConflict(e)) throw e;
      // there already: written by this console, another one, or an earlier one now gone. A
      // console that answers keeps it (its pods know it); a dead address is taken over
      const current = await core.readNamespacedConfigMap({ namespace, name: INSTANCE_IDS_CONFIGMAP });
      const there = current.data?.[INSTANCE_IDS_CONFIGMAP_KEY];
      if (there === this.url) return;
      if (there && (await answers(there))) {
        this.log.info(
          { cluster: this.conn.id, namespace, url: there },
          'another console publishes the instance-ID endpoint here: left as it is',
        );
        return;
      }
      await core.replaceNamespacedConfigMap({
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
