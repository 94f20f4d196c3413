// Writes the controller Lease's Events (lib/leader/events.ts) with the console's own
// credentials, best effort: a missing Event must never stop leading or admission. A woken
// stale leader can attempt many writes in a burst; the refusals are all counted in metrics,
// but one Event per stale epoch and replica per few seconds is enough to tell the story.
import * as k8s from '@kubernetes/client-node';
import { errorText } from '../../lib/kube/errorText.js';
import type { Logger } from '../log.js';

const QUIET_MS = 5_000;

export class LeaseEventWriter {
  private readonly core: k8s.CoreV1Api;
  private readonly last = new Map<string, number>();

  constructor(
    kc: k8s.KubeConfig,
    private readonly log: Logger,
  ) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
  }

  /** Write `body`; with `key`, not again for that key within a few seconds. */
  record(body: k8s.CoreV1Event, key?: string): void {
    if (key) {
      const now = Date.now();
      if (now - (this.last.get(key) ?? -Infinity) < QUIET_MS) return;
      this.last.set(key, now);
      if (this.last.size > 1_000) this.last.clear();
    }
    const namespace = body.metadata?.namespace ?? 'default';
    void this.core
      .createNamespacedEvent({ namespace, body })
      .catch((e) => this.log.warn({ reason: body.reason, err: errorText(e) }, 'Lease event not recorded'));
  }
}
