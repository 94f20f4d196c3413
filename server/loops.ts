// Every loop Palisade runs is added to its cluster's manager here and nowhere else, the way a
// controller-runtime program sets every reconciler up with its manager in one place (main.go).
// A capability builds its loops and hands them over as data: which capability, the cluster
// whose controller Lease the loop follows, the loop. startConsole adds them all in one call
// (the instance-ID publisher later, once the console's URL is known) and takes them all off at
// stop; the runtime (server/runtime/) knows nothing of capabilities. A test of the architecture
// fails when a loop is added to a manager anywhere else.
import type * as k8s from '@kubernetes/client-node';
import type { Loop } from './runtime/loop.js';
import type { Manager } from './runtime/manager.js';
import type { ControllerRuntime } from './runtime/runtime.js';

export type Capability = 'protection' | 'fencing' | 'instance-ids' | 'incidents';

export interface LoopEntry {
  capability: Capability;
  /** the cluster whose controller Lease the loop follows (it runs while this process leads it) */
  cluster: { id: string; kc: k8s.KubeConfig };
  loop: Loop<any, any>;
}

/** The loops one process runs, on the managers of one controller runtime. */
export class Loops {
  private readonly added: { entry: LoopEntry; manager: Manager }[] = [];

  constructor(private readonly runtime: ControllerRuntime) {}

  /** Add each loop to its cluster's manager: it runs whenever this process leads that cluster. */
  add(entries: Iterable<LoopEntry>): this {
    for (const entry of entries) {
      const manager = this.runtime.manager(entry.cluster);
      manager.add(entry.loop);
      this.added.push({ entry, manager });
    }
    return this;
  }

  /** what runs, in the order it was added */
  get entries(): readonly LoopEntry[] {
    return this.added.map((a) => a.entry);
  }

  /** Every loop taken off its manager (each stops now); the managers keep their Leases. */
  stop() {
    for (const { entry, manager } of this.added.splice(0).reverse()) manager.remove(entry.loop);
  }
}

/** The entries of one capability's loops on one cluster. */
export function loopsOn(
  capability: Capability,
  cluster: LoopEntry['cluster'],
  loops: Iterable<Loop<any, any> | undefined>,
): LoopEntry[] {
  return [...loops].filter((l) => l !== undefined).map((loop) => ({ capability, cluster, loop }));
}
