// The recorder against fake watches: what each source becomes, that a fact seen again (a
// heartbeat, a relist, the same Event) is queued once, that nothing is lost while the store is
// not open, and that a failed write is retried.
import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../lib/history/types.js';
import { HistoryRecorder } from './recorder.js';
import type { HistoryService } from './service.js';
import type { HistoryStore } from './store.js';

type Handler = { add?: (v: any) => void; update?: (v: any, old: any) => void; delete?: (old: any) => void };

class FakeInformer {
  handlers: Handler[] = [];
  items: any[] = [];
  started = false;
  constructor(readonly kind = '') {}
  on(h: Handler) {
    this.handlers.push(h);
  }
  values() {
    return this.items.values();
  }
  start() {
    this.started = true;
  }
  async stop() {
    this.started = false;
  }
  add(v: any) {
    for (const h of this.handlers) h.add?.(v);
  }
  update(v: any, old: any) {
    for (const h of this.handlers) h.update?.(v, old);
  }
  delete(old: any) {
    for (const h of this.handlers) h.delete?.(old);
  }
}

const node = (ready: string, since: number) => ({
  view: { name: 'n1', ready, readySince: since, conditions: [{ type: 'Ready', status: 'x', reason: 'R' }] },
});

function setup(opts: { failWrites?: number } = {}) {
  const nodes = new FakeInformer();
  const events = new FakeInformer();
  const pods = new FakeInformer();
  const made = new Map<string, FakeInformer>();
  const conn = {
    id: 'c1',
    spec: { kc: { makeApiClient: () => ({}) } },
    informers: { nodes, events, pods },
    registry: {
      informer: (spec: { kind: string }) => {
        const i = new FakeInformer(spec.kind);
        made.set(spec.kind, i);
        return i;
      },
    },
  };
  let listener: ((kind: string, p: string, item: unknown) => void) | undefined;
  const protection = {
    core: { id: 'c1' },
    cells: [{ id: 'cell-a', cluster: 'c1' }],
    decisions: {
      onEntry: (l: typeof listener) => {
        listener = l;
        return () => undefined;
      },
    },
  };
  const written: HistoryEntry[] = [];
  let failures = opts.failWrites ?? 0;
  let open = false;
  const store = {
    append: async (es: HistoryEntry[]) => {
      if (failures-- > 0) throw new Error('connection lost');
      written.push(...es);
      return es.length;
    },
  } as unknown as HistoryStore;
  const history = { current: () => (open ? store : undefined) } as unknown as HistoryService;
  const recorded: string[] = [];
  const r = new HistoryRecorder({
    history,
    clusters: [conn as never],
    protection: protection as never,
    fencing: { controllers: new Map([['c1', {}]]) } as never,
    flushEveryMs: 60_000,
    onRecorded: (c) => recorded.push(c),
  });
  return {
    r,
    nodes,
    events,
    pods,
    made,
    written,
    recorded,
    deny: (d: object) => listener?.('decision', 'p', d),
    openStore: () => (open = true),
  };
}

describe('the recorder', () => {
  it('records a Ready transition once, however often the node is seen', async () => {
    const s = setup();
    s.openStore();
    s.nodes.add(node('Ready', 1000));
    s.nodes.update(node('Ready', 1000), node('Ready', 1000));
    s.nodes.update(node('Unknown', 9000), node('Ready', 1000));
    await s.r.flush();
    expect(s.written.map((e) => `${e.kind}:${e.reason}`)).toEqual([
      'node-condition:Ready',
      'node-condition:Unknown',
    ]);
    expect(s.recorded).toEqual(['c1']);
  });

  it('records what the watches held before it joined them', async () => {
    const s = setup();
    s.openStore();
    // a second recorder on watches that have listed already
    s.nodes.items.push(node('Ready', 5));
    const again = new HistoryRecorder({
      history: {
        current: () => ({
          append: async (es: HistoryEntry[]) => {
            s.written.push(...es);
            return es.length;
          },
        }),
      } as never,
      clusters: [
        {
          id: 'c1',
          spec: { kc: { makeApiClient: () => ({}) } },
          informers: { nodes: s.nodes, events: s.events, pods: s.pods },
          registry: { informer: () => new FakeInformer() },
        } as never,
      ],
    });
    await again.flush();
    expect(s.written.map((e) => e.id)).toEqual(['node:n1:Ready:5']);
    await again.stop();
  });

  it('keeps entries while the store is not open, and retries a failed write', async () => {
    const s = setup({ failWrites: 1 });
    s.nodes.add(node('Ready', 1000));
    await s.r.flush();
    expect(s.written).toEqual([]);
    s.openStore();
    await s.r.flush(); // fails: kept
    expect(s.written).toEqual([]);
    await s.r.flush();
    expect(s.written).toHaveLength(1);
  });

  it('records refusals of the webhook, not allowed ones, dry runs or retries', async () => {
    const s = setup();
    s.openStore();
    const d = {
      at: 1,
      protector: 'shop/db',
      cell: 'cell-a',
      pod: 'shop/db-0',
      podUid: 'u',
      operation: 'DELETE',
      allowed: false,
      verdict: 'too-few' as const,
      code: 429,
      message: 'too few',
      requester: 'alice',
      dryRun: false,
    };
    s.deny(d);
    s.deny({ ...d, at: 2, allowed: true, verdict: 'admitted' as const, code: 200 });
    s.deny({ ...d, at: 3, dryRun: true });
    s.deny({ ...d, at: 4, verdict: 'buffer-full' as const, code: 409 });
    s.deny({ ...d, at: 5, allowed: true, verdict: 'forced' as const, code: 200 });
    await s.r.flush();
    expect(s.written.map((e) => [e.kind, e.cluster, e.actor])).toEqual([['admission-denial', 'c1', 'alice']]);
  });

  it('records where pods run: bound, terminating, deleted (from the pod watch of the console)', async () => {
    const s = setup();
    const pod = { uid: 'u1', namespace: 'shop', name: 'db-0', node: 'a1-1', createdAt: 1_000 };
    s.pods.add({ ...pod, node: undefined });
    s.pods.update(pod, { ...pod, node: undefined });
    s.pods.update(pod, pod);
    s.pods.update({ ...pod, deletionTimestamp: 40_000, deletionGracePeriodSeconds: 30 }, pod);
    s.pods.delete(pod);
    s.openStore();
    await s.r.flush();
    expect(s.written.map((e) => `${e.kind}:${e.reason}:${e.details?.node}`)).toEqual([
      'pod:Bound:a1-1',
      'pod:Terminating:a1-1',
      'pod:Deleted:a1-1',
    ]);
    await s.r.stop();
  });

  it('records replica changes of workloads and fence steps from projections of the shared watches', async () => {
    const s = setup();
    s.openStore();
    expect([...s.made.keys()].sort()).toEqual(['deployments', 'nodefences', 'statefulsets']);
    expect([...s.made.values()].every((i) => i.started)).toBe(true);
    const w = {
      kind: 'StatefulSet',
      namespace: 'shop',
      name: 'db',
      uid: 'w',
      resourceVersion: '2',
      replicas: 3,
      readyReplicas: 2,
    };
    s.made.get('statefulsets')!.update(w, { ...w, resourceVersion: '1', readyReplicas: 3 });
    s.made.get('statefulsets')!.update({ ...w, resourceVersion: '3' }, w);
    s.made.get('nodefences')!.add([
      {
        id: 'fence:x',
        cluster: 'c1',
        at: new Date(0).toISOString(),
        kind: 'fence-step',
        severity: 'info',
        subject: { kind: 'NodeFence', name: 'x' },
        reason: 'Detected',
        message: '',
      },
    ]);
    await s.r.flush();
    expect(s.written.map((e) => `${e.kind}:${e.reason}`)).toEqual([
      'workload:BelowDesired',
      'fence-step:Detected',
    ]);
    await s.r.stop();
    expect([...s.made.values()].some((i) => i.started)).toBe(false);
  });
});
