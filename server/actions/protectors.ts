// The PodProtectors that select a pod, read live as the person acting, with how each stands
// against its floor: the force-delete dialog names one with no disruption left (issue 25,
// finding 7). Reading them is a courtesy: a person who may not list PodProtectors, or a cluster
// without Podseidon's CRD, gets the dialog without the note; the webhook still decides.
import type * as k8s from '@kubernetes/client-node';
import type { ProtectorFloor } from '../../lib/guard/forceDelete.js';
import { codeOf } from '../../lib/kube/errorText.js';
import { labelSelectorMatches } from '../../lib/kube/labelSelector.js';
import { cellsOf, summarize } from '../../lib/protection/status.js';
import { GROUP, PLURAL, parseProtector, protectorKey, VERSION } from '../../lib/protection/types.js';
import type { ActionApis } from './actor.js';

export async function protectorFloors(apis: ActionApis, pod: k8s.V1Pod): Promise<ProtectorFloor[]> {
  const namespace = pod.metadata!.namespace!;
  let items: unknown[];
  try {
    const list = (await apis.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
    })) as { items?: unknown[] };
    items = list.items ?? [];
  } catch (e) {
    if (codeOf(e) === 403 || codeOf(e) === 404) return [];
    throw e;
  }
  const now = Date.now();
  return items.flatMap((o) => {
    const r = parseProtector(o);
    if (!r.ok || !labelSelectorMatches(r.value.spec.selector, pod.metadata?.labels)) return [];
    const s = summarize(cellsOf(r.value), now);
    return [
      {
        key: protectorKey(r.value),
        minAvailable: r.value.spec.minAvailable,
        available: Math.min(s.aggregatedAvailableReplicas, s.estimatedAvailableReplicas),
      },
    ];
  });
}
