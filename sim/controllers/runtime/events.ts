// Records core/v1 Events the way kube components do: involvedObject, reason, message,
// source component, and a count that grows when the same event repeats.
import type * as k8s from '@kubernetes/client-node';
import { mergePatch } from './patches.js';

interface Subject {
  kind: string;
  apiVersion?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

// Like client-go's correlator: repeats within a window update one Event; the memory
// of what was sent is bounded so pod churn cannot grow it without end.
const MAX_REMEMBERED = 10_000;
const WINDOW_MS = 10 * 60_000;

export class EventRecorder {
  private readonly seen = new Map<string, { name: string; namespace: string; count: number; at: number }>();

  constructor(private readonly core: k8s.CoreV1Api) {}

  async record(
    component: string,
    subject: Subject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ) {
    const namespace = subject.metadata?.namespace || 'default';
    const key = `${component}|${subject.metadata?.uid}|${reason}|${message}`;
    const now = new Date();
    let prior = this.seen.get(key);
    if (prior && now.getTime() - prior.at > WINDOW_MS) {
      this.seen.delete(key);
      prior = undefined;
    }
    try {
      if (prior) {
        prior.count++;
        prior.at = now.getTime();
        await this.core.patchNamespacedEvent(
          { name: prior.name, namespace: prior.namespace, body: { count: prior.count, lastTimestamp: now } },
          mergePatch,
        );
        return;
      }
      const name = `${subject.metadata?.name ?? 'unknown'}.${(now.getTime() * 1000 + Math.floor(Math.random() * 1000)).toString(16)}`;
      await this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name, namespace },
          involvedObject: {
            kind: subject.kind,
            apiVersion: subject.apiVersion,
            name: subject.metadata?.name,
            namespace: subject.metadata?.namespace,
            uid: subject.metadata?.uid,
            resourceVersion: subject.metadata?.resourceVersion,
          },
          reason,
          message,
          type,
          source: { component },
          reportingComponent: component,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
      this.seen.set(key, { name, namespace, count: 1, at: now.getTime() });
      if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value!);
    } catch {
      // events are best effort, as in client-go's recorder
    }
  }
}
