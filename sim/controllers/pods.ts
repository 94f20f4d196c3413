// Helpers shared by the scheduler, node lifecycle, taint eviction, pod GC and disruption
// controllers: an index of pods by node, conditional pod status writes, error text.
import type * as k8s from '@kubernetes/client-node';
import type { PodCondition } from '../../lib/kube/conditions.js';
import { type Clients, statusCode } from './runtime/context.js';
import type { SupervisedInformer } from './runtime/informer.js';
import { mergePatch } from './runtime/patches.js';
import { podKey } from './runtime/conventions.js';

/** Which pods (by key) are bound to each node, kept up to date from the pod informer. */
export class PodsByNode {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly nodeOf = new Map<string, string>();

  constructor(pods: SupervisedInformer<k8s.V1Pod>) {
    pods.on({
      add: (p) => this.set(p),
      update: (p) => this.set(p),
      delete: (p) => this.remove(podKey(p)),
    });
  }

  private set(p: k8s.V1Pod) {
    const key = podKey(p);
    const node = p.spec?.nodeName;
    if (this.nodeOf.get(key) === node) return;
    this.remove(key);
    if (!node) return;
    this.nodeOf.set(key, node);
    let keys = this.byNode.get(node);
    if (!keys) this.byNode.set(node, (keys = new Set()));
    keys.add(key);
  }

  private remove(key: string) {
    const node = this.nodeOf.get(key);
    if (node === undefined) return;
    this.nodeOf.delete(key);
    const keys = this.byNode.get(node);
    keys?.delete(key);
    if (keys?.size === 0) this.byNode.delete(node);
  }

  keys(node: string): string[] {
    return [...(this.byNode.get(node) ?? [])];
  }

  nodes(): string[] {
    return [...this.byNode.keys()];
  }
}

/** The pod as an event's involved object (list items carry no kind). */
export function podSubject(pod: k8s.V1Pod) {
  return { ...pod, kind: 'Pod', apiVersion: 'v1' };
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * Write pod status fields through the status subresource, conditional on the
 * resourceVersion the decision was made from (a stale one gets 409, and the caller retries
 * with fresh data).
 */
export async function writePodStatus(
  c: Clients,
  pod: k8s.V1Pod,
  status: { conditions?: PodCondition[]; phase?: string },
): Promise<k8s.V1Pod> {
  return c.core.patchNamespacedPodStatus(
    {
      name: pod.metadata!.name!,
      namespace: pod.metadata!.namespace!,
      body: { metadata: { resourceVersion: pod.metadata?.resourceVersion }, status },
    },
    mergePatch,
  );
}

/** A failed call in one line: the API's Status message rather than client-node's dump. */
export function errorText(err: unknown): string {
  const code = statusCode(err);
  if (code === 409) return 'conflict (our cache was behind), retrying';
  if (code) {
    const body = (err as { body?: unknown }).body;
    try {
      const status = typeof body === 'string' ? JSON.parse(body) : body;
      if (status?.message) return `${code} ${status.message}`;
    } catch {
      // not a Status body: fall through to the exception's own message
    }
  }
  return err instanceof Error ? err.message : String(err);
}
