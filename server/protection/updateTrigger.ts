// Keeps a quiet cell's pod stream moving: a never-scheduled pod whose annotation is
// rewritten every interval, so each aggregator sees an event at least that often and a
// stale bucket (a deletion that was admitted but never happened) cannot block deletions
// for long. Podseidon's update trigger, on by default here. A loop on the controller runtime
// with one key: only the leader writes the heartbeat (every interval, as requeueAfter). The
// Helm chart makes the pod (Palisade's ServiceAccount may patch that pod, not create pods:
// creating a pod in a namespace reaches every Secret there), so the pod is created only when a
// heartbeat finds it missing, where Palisade runs with the right to.
import * as k8s from '@kubernetes/client-node';
import type { ProtectionMetrics } from './metrics.js';
import { codeOf, isConflict, isNotFound, errorText } from '../../lib/kube/errorText.js';
import { component, type Logger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { singletonKey } from '../../lib/runtime/keys.js';
import { isNotLeader, type Term } from '../runtime/gate.js';
import { type Result, requeueAfter } from '../../lib/runtime/result.js';

export const TRIGGER_POD = 'podseidon-update-trigger';
export const TRIGGER_ANNOTATION = 'podseidon.kubewharf.io/update-trigger-time';
/** Palisade's own pods carry this label; the webhook configuration excludes them. */
export const RELEASE_LABEL = 'podseidon.kubewharf.io/release-id';
export const RELEASE_ID = 'palisade';

const KEY = 'heartbeat';

/**
 * Never scheduled, never run: the pod exists only to produce watch events. Its spec still meets
 * Pod Security "restricted", so Palisade's namespace can enforce that level.
 */
export const TRIGGER_POD_SPEC: k8s.V1PodSpec = {
  schedulerName: 'do-not-schedule',
  automountServiceAccountToken: false,
  securityContext: { runAsNonRoot: true, runAsUser: 65535, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [
    {
      name: 'main',
      image: 'registry.k8s.io/pause:3.10',
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
};

export class UpdateTrigger {
  /** its loop on the controller runtime (one key, every interval) */
  readonly loop: Loop<typeof KEY, 'interval'>;
  private core: k8s.CoreV1Api | undefined;
  private readonly log: Logger;
  /** the trigger pod was missing at the last heartbeat: create it first */
  private create = false;
  /** the pod is missing and may not be created: told once a term, not every interval */
  private toldForbidden = false;

  constructor(
    private readonly o: {
      cellId: string;
      kc: k8s.KubeConfig;
      namespace: string;
      intervalMillis: number;
      metrics: ProtectionMetrics;
      /** where its lines go (component 'updateTrigger', with the cell); context such as { cluster } on it */
      logger?: Logger;
    },
  ) {
    this.log = component('updateTrigger', { cell: o.cellId }, o.logger);
    this.loop = new Loop<typeof KEY, 'interval'>({
      name: `update-trigger:${o.cellId}`,
      key: singletonKey(KEY),
      begin: (term) => this.begin(term),
      reconcile: () => this.tick(),
      end: () => (this.core = undefined),
      logger: o.logger,
    });
  }

  private begin(term: Term) {
    this.core = term.kc(this.o.kc).makeApiClient(k8s.CoreV1Api);
    this.create = false;
    this.toldForbidden = false;
    this.loop.enqueue(KEY);
  }

  /** One heartbeat; errors are counted and told, never retried sooner than the interval. */
  private async tick(): Promise<Result<'interval'>> {
    const core = this.core;
    if (!core) throw new Error('no term: not leading');
    let recreate = false;
    try {
      if (this.create) await this.ensurePod(core);
      await core.patchNamespacedPod(
        {
          name: TRIGGER_POD,
          namespace: this.o.namespace,
          body: { metadata: { annotations: { [TRIGGER_ANNOTATION]: new Date().toISOString() } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      this.o.metrics.heartbeats.inc({ cell: this.o.cellId, outcome: 'ok' });
    } catch (e) {
      recreate = isNotFound(e);
      this.o.metrics.heartbeats.inc({ cell: this.o.cellId, outcome: 'error' });
      if (this.create && codeOf(e) === 403) {
        if (!this.toldForbidden)
          this.log.warn(
            { pod: `${this.o.namespace}/${TRIGGER_POD}`, err: errorText(e) },
            'the update-trigger pod is missing and Palisade may not create it: `helm upgrade` makes it again',
          );
        this.toldForbidden = true;
      } else if (!recreate && !isNotLeader(e)) this.log.warn({ err: errorText(e) }, 'heartbeat not written');
      else this.log.debug({ pod: `${this.o.namespace}/${TRIGGER_POD}` }, 'trigger pod gone: recreating it');
    }
    this.create = recreate;
    return requeueAfter(this.o.intervalMillis, 'interval');
  }

  private async ensurePod(core: k8s.CoreV1Api) {
    try {
      await core.createNamespacedPod({
        namespace: this.o.namespace,
        body: {
          metadata: {
            name: TRIGGER_POD,
            labels: { [RELEASE_LABEL]: RELEASE_ID, 'podseidon-update-trigger-dummy-pod': 'true' },
            annotations: { [TRIGGER_ANNOTATION]: new Date().toISOString() },
          },
          spec: TRIGGER_POD_SPEC,
        },
      });
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }
}
