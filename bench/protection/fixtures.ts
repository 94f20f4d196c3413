// What the storm runs against: a namespace of bare pods (no controller that would recreate
// them mid-storm) and the PodProtector over them, created through the API with raw
// node:https, and the waits until the pods are Ready and the aggregator counts them.
import type { Client } from '../http.js';
import { ensureNamespace, sleep } from '../common.js';
import { RELEASE_ID, RELEASE_LABEL } from '../../server/protection/updateTrigger.js';
import { PROTECTED_NAMESPACE_LABEL, PROTECTED_NAMESPACE_VALUE } from '../../lib/protection/namespaceLabel.js';

const PPR_PATH = '/apis/podseidon.kubewharf.io/v1alpha1';
const CREATE_CONCURRENCY = 32;

export const podName = (prefix: string, i: number) => `${prefix}-${String(i).padStart(4, '0')}`;

function pod(ns: string, name: string, labels: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels },
    spec: {
      // short, so admitted pods leave the nodes (and the API) during the storm
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

export interface PodGroup {
  prefix: string;
  count: number;
  labels: Record<string, string>;
}

/** The label that keeps a pod out of the webhook's objectSelector (Palisade's own pods). */
export const UNWEBHOOKED = { [RELEASE_LABEL]: RELEASE_ID };

export async function createPods(c: Client, ns: string, groups: PodGroup[]) {
  await ensureNamespace(c, ns);
  const all = groups.flatMap((g) =>
    Array.from({ length: g.count }, (_, i) => JSON.stringify(pod(ns, podName(g.prefix, i), g.labels))),
  );
  let next = 0;
  const worker = async () => {
    while (next < all.length) {
      const body = all[next++];
      await c.expect([201, 409], 'POST', `/api/v1/namespaces/${ns}/pods`, { body });
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

interface PodList {
  items: {
    metadata: { name: string; deletionTimestamp?: string };
    status?: { conditions?: { type: string; status: string }[] };
  }[];
}

export interface PodCensus {
  total: number;
  terminating: number;
  /** not terminating and Ready (minReadySeconds is 0: that is available) */
  available: number;
}

export async function census(c: Client, ns: string, selector: string): Promise<PodCensus> {
  const q = encodeURIComponent(selector);
  const r = await c.expect(200, 'GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${q}`);
  const list = JSON.parse(r.body.toString('utf8')) as PodList;
  const out = { total: list.items.length, terminating: 0, available: 0 };
  for (const p of list.items) {
    if (p.metadata.deletionTimestamp) out.terminating++;
    else if (p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')) out.available++;
  }
  return out;
}

/** Poll until at least `count` pods are available; throws with the last census when out of time. */
export async function waitAvailable(
  c: Client,
  ns: string,
  selector: string,
  count: number,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await census(c, ns, selector);
    if (s.available >= count) return s;
    if (Date.now() > deadline)
      throw new Error(
        `${ns}: ${s.available} of ${count} pods available after ${timeoutMs} ms (${s.total} exist)`,
      );
    await sleep(500);
  }
}

/** Poll until no pod of the selector is left in the API (deleted pods finish terminating). */
export async function waitGone(c: Client, ns: string, selector: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await census(c, ns, selector);
    if (s.total === 0 || Date.now() > deadline) return s;
    await sleep(500);
  }
}

export async function createProtector(
  c: Client,
  ns: string,
  name: string,
  app: string,
  minAvailable: number,
) {
  const body = JSON.stringify({
    apiVersion: 'podseidon.kubewharf.io/v1alpha1',
    kind: 'PodProtector',
    metadata: { name, namespace: ns },
    spec: { minAvailable, minReadySeconds: 0, selector: { matchLabels: { app } } },
  });
  await c.expect(201, 'POST', `${PPR_PATH}/namespaces/${ns}/podprotectors`, { body });
}

/** Until the namespace carries the protected-namespace label (the webhook is called there). */
export async function waitProtectedNamespace(c: Client, ns: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.expect(200, 'GET', `/api/v1/namespaces/${ns}`);
    const labels = JSON.parse(r.body.toString('utf8')).metadata?.labels ?? {};
    if (labels[PROTECTED_NAMESPACE_LABEL] === PROTECTED_NAMESPACE_VALUE) return;
    if (Date.now() > deadline)
      throw new Error(`namespace ${ns}: no ${PROTECTED_NAMESPACE_LABEL} label after ${timeoutMs} ms`);
    await sleep(250);
  }
}

export interface Summary {
  aggregatedAvailableReplicas?: number;
  estimatedAvailableReplicas?: number;
  totalReplicas?: number;
}

export async function protectorSummary(c: Client, ns: string, name: string): Promise<Summary> {
  const r = await c.expect(200, 'GET', `${PPR_PATH}/namespaces/${ns}/podprotectors/${name}`);
  return (JSON.parse(r.body.toString('utf8')).status?.summary ?? {}) as Summary;
}

/** Until the protector's status says `count` available, aggregated and estimated. */
export async function waitAggregated(c: Client, ns: string, name: string, count: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await protectorSummary(c, ns, name);
    if (s.aggregatedAvailableReplicas === count && s.estimatedAvailableReplicas === count) return s;
    if (Date.now() > deadline)
      throw new Error(
        `${ns}/${name}: aggregated ${s.aggregatedAvailableReplicas}, estimated ${s.estimatedAvailableReplicas}, want ${count} (after ${timeoutMs} ms)`,
      );
    await sleep(250);
  }
}
