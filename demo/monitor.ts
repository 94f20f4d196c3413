// Polls the protected workloads while the storm runs and keeps the lowest counts seen: the
// API's available pods and the protector's aggregated and estimated counts. Independent of
// the console and of the checker, so the demo's claim is checked three ways.
import { type Target, sample } from './cluster.js';
import type { KubeHttp } from './kube.js';
import { emptyLows, type Lows, type Sample, track } from './tally.js';

export interface Monitor {
  /** stop polling; the lowest counts per protector and every sample taken */
  stop(): Promise<{ lows: Map<string, Lows>; series: Map<string, Sample[]> }>;
}

export function startMonitor(kube: KubeHttp, targets: readonly Target[], everyMs = 100): Monitor {
  const lows = new Map(targets.map((t) => [t.protector, emptyLows()]));
  const series = new Map<string, Sample[]>(targets.map((t) => [t.protector, []]));
  let running = true;
  let failures = 0;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const s = await sample(kube, targets);
        for (const t of targets) {
          const x = s.get(t.protector)!;
          track(lows.get(t.protector)!, x, t.floor.minAvailable);
          series.get(t.protector)!.push(x);
        }
      } catch (e) {
        // a slow or failed poll is not a safety problem, but too many mean we saw nothing
        if (++failures > 20) throw e;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { lows, series };
    },
  };
}
