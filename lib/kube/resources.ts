// A pod's effective resource requests as kube-scheduler counts them (NodeResourcesFit), in
// millicores and bytes: the embedded cluster's scheduler and the incident view's "how much room
// is left, and where can a replacement start" (lib/incident/capacity.ts). Pure.
import { parseQuantity } from './quantity.js';

// ---------------------------------------------------------------------------
// Quantities (resource.Quantity)

// toFixed keeps 0.1 * 1000 from becoming 100.00000000000001 and rounding up to 101
const ceil = (v: number) => Math.ceil(Number(v.toFixed(6)));

/** Quantity.MilliValue (rounded up), e.g. CPU in millicores. */
export const milliValue = (q: string | number | undefined | null) => ceil((parseQuantity(q) ?? 0) * 1000);
/** Quantity.Value (rounded up), e.g. memory in bytes. */
export const wholeValue = (q: string | number | undefined | null) => ceil(parseQuantity(q) ?? 0);

// ---------------------------------------------------------------------------
// Pod requests

export interface Resources {
  milliCpu: number;
  memory: number;
}

type ResourceList = Record<string, string | number> | undefined;
interface Container {
  resources?: { requests?: ResourceList; limits?: ResourceList };
}
export interface PodSpecLike {
  containers?: Container[];
  initContainers?: Container[];
  overhead?: ResourceList;
}

function containerRequests(c: Container): Resources {
  // the API server defaults a missing request to the limit
  const get = (r: string) => c.resources?.requests?.[r] ?? c.resources?.limits?.[r];
  return { milliCpu: milliValue(get('cpu')), memory: wholeValue(get('memory')) };
}

/** Effective requests: max(sum of app containers, largest init container) + overhead. */
export function podRequests(spec: PodSpecLike | undefined): Resources {
  const sum = { milliCpu: 0, memory: 0 };
  for (const c of spec?.containers ?? []) {
    const r = containerRequests(c);
    sum.milliCpu += r.milliCpu;
    sum.memory += r.memory;
  }
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c);
    sum.milliCpu = Math.max(sum.milliCpu, r.milliCpu);
    sum.memory = Math.max(sum.memory, r.memory);
  }
  sum.milliCpu += milliValue(spec?.overhead?.cpu);
  sum.memory += wholeValue(spec?.overhead?.memory);
  return sum;
}
