import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type LoopEntry, Loops, loopsOn } from './loops.js';
import type { Loop } from './runtime/loop.js';
import type { ControllerRuntime } from './runtime/runtime.js';

/** A runtime whose managers record what is added and removed, by cluster. */
function recordingRuntime() {
  const log: string[] = [];
  const managers = new Map<string, { add(l: { name: string }): void; remove(l: { name: string }): void }>();
  const runtime = {
    manager(c: { id: string }) {
      let m = managers.get(c.id);
      if (!m)
        managers.set(
          c.id,
          (m = {
            add: (l) => log.push(`add ${c.id} ${l.name}`),
            remove: (l) => log.push(`remove ${c.id} ${l.name}`),
          }),
        );
      return m;
    },
  } as unknown as ControllerRuntime;
  return { runtime, log };
}

const cluster = (id: string) => ({ id, kc: {} as k8s.KubeConfig });
const loop = (name: string) => ({ name }) as unknown as Loop<unknown, string>;

describe('Loops: where every loop joins its cluster’s manager', () => {
  it('adds each loop to the manager of its own cluster, in order', () => {
    const { runtime, log } = recordingRuntime();
    const loops = new Loops(runtime).add([
      ...loopsOn('protection', cluster('core'), [loop('generator'), undefined, loop('enforcer')]),
      ...loopsOn('fencing', cluster('edge'), [loop('fencing')]),
    ]);
    expect(log).toEqual(['add core generator', 'add core enforcer', 'add edge fencing']);
    expect(loops.entries.map((e: LoopEntry) => `${e.capability} ${e.cluster.id}`)).toEqual([
      'protection core',
      'protection core',
      'fencing edge',
    ]);
  });

  it('takes every loop off at stop, the last added first, and only once', () => {
    const { runtime, log } = recordingRuntime();
    const loops = new Loops(runtime).add(loopsOn('fencing', cluster('a'), [loop('fencing')]));
    loops.add(loopsOn('instance-ids', cluster('a'), [loop('publisher')]));
    log.length = 0;
    loops.stop();
    loops.stop();
    expect(log).toEqual(['remove a publisher', 'remove a fencing']);
    expect(loops.entries).toEqual([]);
  });
});
