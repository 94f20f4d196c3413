// Keeps a quiet cell's pod stream moving: a never-scheduled pod whose annotation is
// rewritten every interval, so each aggregator sees an event at least that often and a
// stale bucket (a deletion that was admitted but never happened) cannot block deletions
// for long. Podseidon's update trigger, on by default here.
import * as k8s from '@kubernetes/client-node';
import type { ProtectionMetrics } from './metrics.js';
import { errorText } from '../../lib/kube/errorText.js';
import { component, type Logger } from '../log.js';

export const TRIGGER_POD = 'podseidon-update-trigger';
export const TRIGGER_ANNOTATION = 'podseidon.kubewharf.io/update-trigger-time';
/** Palisade's own pods carry this label; the webhook configuration excludes them. */
export const RELEASE_LABEL = 'podseidon.kubewharf.io/release-id';
export const RELEASE_ID = 'palisade';

export class UpdateTrigger {
  private timer: NodeJS.Timeout | undefined;
  private readonly core: k8s.CoreV1Api;
  private readonly log: Logger;
  private stopped = false;

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
    this.core = o.kc.makeApiClient(k8s.CoreV1Api);
    this.log = component('updateTrigger', { cell: o.cellId }, o.logger);
  }

  start() {
    this.stopped = false;
    void this.tick(true);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async tick(create: boolean) {
    if (this.stopped) return;
    let recreate = false;
    try {
      if (create) await this.ensurePod();
      await this.core.patchNamespacedPod(
        {
          name: TRIGGER_POD,
          namespace: this.o.namespace,
          body: { metadata: { annotations: { [TRIGGER_ANNOTATION]: new Date().toISOString() } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      this.o.metrics.heartbeats.inc({ cell: this.o.cellId, outcome: 'ok' });
    } catch (e) {
      recreate = (e as { code?: number }).code === 404;
      this.o.metrics.heartbeats.inc({ cell: this.o.cellId, outcome: 'error' });
      if (!recreate) this.log.warn({ err: errorText(e) }, 'heartbeat not written');
      else this.log.debug({ pod: `${this.o.namespace}/${TRIGGER_POD}` }, 'trigger pod gone: recreating it');
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(recreate), this.o.intervalMillis);
  }

  private async ensurePod() {
    try {
      await this.core.createNamespacedPod({
        namespace: this.o.namespace,
        body: {
          metadata: {
            name: TRIGGER_POD,
            labels: { [RELEASE_LABEL]: RELEASE_ID, 'podseidon-update-trigger-dummy-pod': 'true' },
            annotations: { [TRIGGER_ANNOTATION]: new Date().toISOString() },
          },
          // never scheduled, never run: it exists only to produce watch events
          spec: {
            schedulerName: 'do-not-schedule',
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        },
      });
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }
}
