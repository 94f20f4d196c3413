// The runaway client: a few workers, each looping as fast as the API answers — list the
// protected workloads' pods (the controllers keep recreating them) and DELETE every one
// not already terminating, all at once. No back-off and no retry budget: the only thing
// between it and an outage is the admission webhook.
import { type FloorPod, isAvailable } from '../sim/rules/protection/floorCheck.js';
import type { Target } from './cluster.js';
import { itemsOf, type KubeHttp } from './kube.js';
import { countDelete, emptyTally, type Tally } from './tally.js';

type ListedPod = FloorPod & { metadata?: FloorPod['metadata'] & { name?: string; uid?: string } };

export interface StormOptions {
  workers: number;
  durationMs: number;
}

export interface StormResult {
  startedAt: number;
  endedAt: number;
  /** protector key -> what its pods' deletions got back */
  tallies: Map<string, Tally>;
  /** one refusal message per HTTP code, as the API server sent it */
  messages: Map<number, string>;
}

export async function runStorm(kube: KubeHttp, targets: readonly Target[], o: StormOptions) {
  const result: StormResult = {
    startedAt: Date.now(),
    endedAt: 0,
    tallies: new Map(targets.map((t) => [t.protector, emptyTally()])),
    messages: new Map(),
  };
  const until = result.startedAt + o.durationMs;
  const worker = async () => {
    while (Date.now() < until) await Promise.all(targets.map((t) => sweep(kube, t, result)));
  };
  await Promise.all(Array.from({ length: o.workers }, worker));
  result.endedAt = Date.now();
  return result;
}

async function sweep(kube: KubeHttp, t: Target, r: StormResult) {
  const tally = r.tallies.get(t.protector)!;
  let pods: ListedPod[];
  try {
    const q = encodeURIComponent(t.selector);
    pods = itemsOf(await kube.request('GET', `/api/v1/namespaces/${t.namespace}/pods?labelSelector=${q}`));
  } catch {
    tally.errors.list = (tally.errors.list ?? 0) + 1;
    return;
  }
  const now = Date.now();
  const live = pods.filter((p) => !p.metadata?.deletionTimestamp);
  await Promise.all(
    live.map(async (p) => {
      const name = p.metadata?.name ?? '';
      const available = isAvailable(p, t.floor.minReadySeconds ?? 0, now);
      const path = `/api/v1/namespaces/${t.namespace}/pods/${name}`;
      const res = await kube.request('DELETE', path).catch(() => ({ status: 0, body: undefined }));
      countDelete(tally, res.status, { uid: p.metadata?.uid ?? name, name, available });
      const msg = (res.body as { message?: string } | undefined)?.message;
      if (res.status >= 400 && res.status !== 404 && msg && !r.messages.has(res.status))
        r.messages.set(res.status, msg);
    }),
  );
}
