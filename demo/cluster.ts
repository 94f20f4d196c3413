// What the storm demo reads from the cluster, only through the Kubernetes API: the protected
// workloads (their PodProtector's floor and selector, the workload's replicas) and, per poll,
// how many of their pods are available next to what their protector's status says.
import { type Floor, type FloorPod, availableCount } from '../sim/rules/protection/floorCheck.js';
import { summaryOf } from '../lib/protection/status.js';
import { GROUP, PLURAL, type PodProtector, parseProtector, VERSION } from '../lib/protection/types.js';
import { labelSelectorToString } from '../lib/kube/labelSelector.js';
import { itemsOf, type KubeHttp } from './kube.js';
import type { Sample } from './tally.js';

export interface Workload {
  kind: 'Deployment' | 'StatefulSet';
  namespace: string;
  name: string;
}

export interface Target {
  /** namespace/name of the PodProtector the generator made for the workload */
  protector: string;
  namespace: string;
  /** the protector's selector as a query string value */
  selector: string;
  floor: Floor;
  replicas: number;
}

const protectorPath = (ns: string, name?: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}${name ? `/${name}` : ''}`;

export async function readTarget(kube: KubeHttp, w: Workload): Promise<Target> {
  const name = `${w.kind.toLowerCase()}-${w.name}`;
  const res = await kube.request('GET', protectorPath(w.namespace, name));
  if (res.status !== 200) throw new Error(`PodProtector ${w.namespace}/${name}: HTTP ${res.status}`);
  const p = parseProtector(res.body);
  if (!p.ok) throw new Error(`PodProtector ${w.namespace}/${name}: ${p.error}`);
  const plural = w.kind === 'Deployment' ? 'deployments' : 'statefulsets';
  const wl = await kube.request('GET', `/apis/apps/v1/namespaces/${w.namespace}/${plural}/${w.name}`);
  if (wl.status !== 200) throw new Error(`${w.kind} ${w.namespace}/${w.name}: HTTP ${wl.status}`);
  return {
    protector: `${w.namespace}/${name}`,
    namespace: w.namespace,
    selector: labelSelectorToString(p.value.spec.selector as never),
    floor: floorOf(p.value),
    replicas: (wl.body as { spec?: { replicas?: number } }).spec?.replicas ?? 1,
  };
}

const floorOf = (p: PodProtector): Floor => ({
  minAvailable: p.spec.minAvailable,
  minReadySeconds: p.spec.minReadySeconds,
  selector: p.spec.selector,
  aggregationSelector: p.spec.aggregationSelector,
});

/** One poll of every target: pods available per the API, and each protector's status counts. */
export async function sample(kube: KubeHttp, targets: readonly Target[]): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  for (const ns of new Set(targets.map((t) => t.namespace))) {
    const [pods, protectors] = await Promise.all([
      kube.request('GET', `/api/v1/namespaces/${ns}/pods`).then((r) => itemsOf<FloorPod>(r)),
      kube.request('GET', protectorPath(ns)).then((r) => itemsOf<unknown>(r)),
    ]);
    const now = Date.now();
    const byKey = new Map<string, PodProtector>();
    for (const raw of protectors) {
      const p = parseProtector(raw);
      if (p.ok) byKey.set(`${p.value.metadata.namespace}/${p.value.metadata.name}`, p.value);
    }
    for (const t of targets.filter((x) => x.namespace === ns)) {
      const p = byKey.get(t.protector);
      if (!p) throw new Error(`PodProtector ${t.protector} is gone`);
      const s = summaryOf(p, now);
      out.set(t.protector, {
        at: now,
        available: availableCount(t.floor, pods, now),
        aggregated: s.aggregatedAvailableReplicas,
        estimated: s.estimatedAvailableReplicas,
      });
    }
  }
  return out;
}

/** Whether every target has all its replicas available, by the API and by its protector. */
export const whole = (targets: readonly Target[], s: Map<string, Sample>) =>
  targets.every((t) => {
    const x = s.get(t.protector);
    return !!x && x.available >= t.replicas && x.aggregated >= t.replicas && x.estimated >= t.replicas;
  });
