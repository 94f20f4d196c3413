// Differential: a node partitioned and healed on the whole simulated cluster (kubelets,
// scheduler, infrastructure), once on the embedded control plane and once on kube-apiserver +
// kube-controller-manager v1.34.10, in one run. Compared: what a client watching sees, as
// sequences of distinct states (the node's Ready condition and taints, each pod's Ready /
// DisruptionTarget / deletion) and the set of events about them; timing is not compared.
// Then every node is cut off at once: the zone-disruption rule decides what stays tainted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type EmbeddedCluster, startEmbeddedCluster } from '../cluster.js';
import { parseScenario } from '../scenario/load.js';
import { tinyDurations } from '../test/clusterHarness.js';
import { type Backend, backend, call, type WatchRecorder, watch } from './backends.js';
import { eventSet, nodeState, nodeSteps, podSteps, withEffectOrderSwapped } from './timeline.js';

const scenario = parseScenario(
  `
name: node-lifecycle-diff
${tinyDurations}
nodes:
  zones:
    - name: zone-a
      racks: [{ name: a1, count: 2 }]
    - name: zone-b
      racks: [{ name: b1, count: 1 }]
workloads:
  - { kind: Deployment, name: web, namespace: shop, replicas: 2, zones: [zone-b], terminationGracePeriodSeconds: 2 }
  - { kind: StatefulSet, name: db, namespace: shop, replicas: 1, zones: [zone-b], terminationGracePeriodSeconds: 2 }
`,
  'node lifecycle diff',
);
const NODE = 'b1-1';
const NODES = ['a1-1', 'a1-2', 'b1-1'];
const pods = '/api/v1/namespaces/shop/pods';

interface Side {
  cluster: EmbeddedCluster;
  b: Backend;
}
let sides: { embedded: Side; real: Side };

beforeAll(async () => {
  const start = async (kind: 'embedded' | 'real'): Promise<Side> => {
    const cluster = await startEmbeddedCluster({ scenario, backend: kind, crdDir: false });
    return { cluster, b: backend(kind, cluster.apiserver) };
  };
  const [embedded, real] = await Promise.allSettled([start('embedded'), start('real')]);
  if (embedded.status === 'rejected' || real.status === 'rejected') {
    for (const s of [embedded, real]) if (s.status === 'fulfilled') await s.value.cluster.stop();
    throw embedded.status === 'rejected' ? embedded.reason : (real as PromiseRejectedResult).reason;
  }
  sides = { embedded: embedded.value, real: real.value };
}, 120_000);
// the real side's graceful shutdown (three processes) can take over a minute on a loaded machine
afterAll(async () => {
  if (sides) await Promise.all([sides.embedded.cluster.stop(), sides.real.cluster.stop()]);
}, 120_000);

const both = async <T>(f: (s: Side) => Promise<T>) => {
  const [embedded, real] = await Promise.all([f(sides.embedded), f(sides.real)]);
  // DIFF_DUMP=dir keeps both sides, as onBoth does
  if (process.env.DIFF_DUMP) {
    mkdirSync(process.env.DIFF_DUMP, { recursive: true });
    writeFileSync(
      `${process.env.DIFF_DUMP}/nodeLifecycle-${Date.now()}.json`,
      // the event sets are read when dumped
      JSON.stringify({ embedded, real }, (k, v) => (k === 'events' && typeof v === 'function' ? v() : v), 2),
    );
  }
  return { embedded, real };
};
const list = async (b: Backend, path: string) => (await call(b, 'GET', path)).body.items as any[];
const ready = (o: any) => o.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');

/** partition the node, wait for its pods to be evicted, heal it, wait for it to recover */
async function partitionAndHeal({ cluster, b }: Side) {
  const onNode = await eventually(
    async () => {
      const ps = (await list(b, pods)).filter((p) => p.spec.nodeName === NODE && ready(p));
      return ps.length === 3 && ps;
    },
    `${b.name}: three pods ready on ${NODE}`,
    30_000,
  );
  // by uid: the StatefulSet's replacement takes the evicted pod's name
  const uids = onNode.map((p) => p.metadata.uid);
  // the node controller's events from before: RegisteredNode when it first saw each node
  const before = (await call(b, 'GET', '/api/v1/events?fieldSelector=involvedObject.kind%3DNode')).body;
  const nodeAliases = Object.fromEntries(NODES.map((n) => [n, n]));
  const registered = eventSet(
    before.items
      .filter((e: any) => e.source?.component === 'node-controller')
      .map((object: any) => ({ type: 'ADDED', object })),
    nodeAliases,
  );
  // events from now on only: the start-up ones (scheduling races while nodes boot) differ
  const recs: WatchRecorder[] = await Promise.all([
    watch(b, '/api/v1/nodes?watch=true'),
    watch(b, `${pods}?watch=true`),
    watch(b, `/api/v1/events?watch=true&resourceVersion=${before.metadata.resourceVersion}`),
  ]);
  cluster.infra.partition(NODE);
  await eventually(
    async () =>
      (await list(b, pods)).filter((p) => uids.includes(p.metadata.uid) && p.metadata.deletionTimestamp)
        .length === 3,
    `${b.name}: pods on ${NODE} evicted`,
    15_000,
  );
  // ...and the kubelets' own watch has seen it too: a kubelet healed before that relists the
  // pods without their deletion and writes Ready=True once more, an extra state that depends
  // only on how far the watch lags the read (a loaded machine, either back end)
  await eventually(
    () => uids.every((u) => cluster.fleet.pod(u)?.metadata?.deletionTimestamp),
    `${b.name}: the kubelets' watch saw the evictions`,
    15_000,
  );
  cluster.infra.heal(NODE);
  await eventually(
    async () => {
      const n = (await call(b, 'GET', `/api/v1/nodes/${NODE}`)).body;
      const left = (await list(b, pods)).filter((p) => uids.includes(p.metadata.uid));
      if (ready(n) && !n.spec.taints?.length && left.length === 0) return true;
      // the state in the timeout's message
      throw new Error(JSON.stringify({ node: nodeState(n), left: left.map((p) => p.metadata) }));
    },
    `${b.name}: ${NODE} recovered and its evicted pods gone`,
    15_000,
  );
  // the watches are behind the reads: wait for them to have seen the same end
  // (events are recorded best effort, after the fact: the last ones about each pod too)
  const [nodeRec, podRec, eventRec] = recs;
  const names = onNode.map((p) => p.metadata.name);
  const told = (reason: string) =>
    names.every((n) =>
      eventRec.events.some((e) => e.object?.reason === reason && e.object.involvedObject?.name === n),
    );
  await eventually(() => {
    const gone = uids.every((u) =>
      podRec.events.some((e) => e.type === 'DELETED' && e.object.metadata.uid === u),
    );
    const last = nodeSteps(nodeRec.events, NODE).at(-1);
    const node = last?.ready?.status === 'True' && last.taints.length === 0;
    return gone && node && told('TaintManagerEviction') && told('Killing');
  }, `${b.name}: watches caught up`);
  // the event watch stays open: the other side may have recorded one more by now
  for (const r of recs.slice(0, 2)) r.stop();
  const [nodes, podEvents] = recs.map((r) => r.events);
  const aliases: Record<string, string> = { [NODE]: NODE };
  for (const p of onNode)
    aliases[p.metadata.name] = p.metadata.ownerReferences[0].kind === 'StatefulSet' ? 'db-0' : 'web-pod';
  return {
    registered,
    node: nodeSteps(nodes, NODE),
    pods: podSteps(podEvents, uids),
    // not the StatefulSet's replacement, which takes the same name (the taint manager's
    // events name a pod without its uid)
    events: () =>
      eventSet(eventRec.events, aliases, (o) => o.kind === 'Node' || !o.uid || uids.includes(o.uid)),
    stopEvents: () => eventRec.stop(),
  };
}

describe('a partitioned node', () => {
  it('goes through the same conditions, taints, pod evictions and events, then recovers', async () => {
    const r = await both(partitionAndHeal);
    try {
      expect(r.embedded.registered).toEqual(r.real.registered);
      // the embedded controller always writes the NoSchedule taint change first; the real one
      // usually does (see withEffectOrderSwapped)
      expect(withEffectOrderSwapped(r.embedded.node)).toContainEqual(r.real.node);
      expect(r.embedded.pods).toEqual(r.real.pods);
      // events are recorded best effort, after the fact, and one side may be a step behind the
      // other (seen once in CI: 9 against 10): wait a while for the two sets to agree, then compare
      await eventually(
        () => isDeepStrictEqual(r.embedded.events(), r.real.events()),
        'the same events on both sides',
        20_000,
      ).catch(() => undefined);
      expect(r.embedded.events()).toEqual(r.real.events());
    } finally {
      r.embedded.stopEvents();
      r.real.stopEvents();
    }
  }, 90_000);

  // Every zone fully disrupted: the controller assumes it is the one cut off ("master
  // disruption mode") and takes the NoExecute taints off every node. Two nodes are cut off
  // first and tainted (zone-b alone fully disrupted still taints), then the last one. The
  // last node's own NoExecute taint is not compared: kube-controller-manager removes taints
  // only when its node cache shows them, and its tainting loop may add that node's taint
  // after the cache was read (a race in the real controller, seen once in a few runs).
  it('with every node cut off, the controller stops NoExecute tainting everywhere', async () => {
    const first = ['a1-2', 'b1-1'];
    const r = await both(async ({ cluster, b }) => {
      const states = async () =>
        Object.fromEntries(
          (await list(b, '/api/v1/nodes'))
            .filter((n) => NODES.includes(n.metadata.name))
            .map((n) => [n.metadata.name, nodeState(n)]),
        );
      const wait = (what: string, ok: (s: Record<string, ReturnType<typeof nodeState>>) => boolean) =>
        eventually(
          async () => {
            const s = await states();
            if (ok(s)) return s;
            throw new Error(JSON.stringify(s));
          },
          `${b.name}: ${what}`,
          15_000,
        );
      const noExecute = (s: ReturnType<typeof nodeState>) =>
        s.taints.some((t: string) => t.includes('NoExecute'));
      for (const n of first) cluster.infra.partition(n);
      const tainted = await wait('two nodes tainted', (s) => first.every((n) => s[n].taints.length === 2));
      cluster.infra.partition('a1-1');
      // the last node's NoSchedule taint follows its Unknown condition by a tainting pass (the
      // disruption mode does not stop that one): wait for it too, or the snapshot races it
      const all = await wait(
        'every node Unknown and tainted NoSchedule, the first two without NoExecute',
        (s) =>
          NODES.every((n) => s[n].ready?.status === 'Unknown') &&
          !first.some((n) => noExecute(s[n])) &&
          s['a1-1'].taints.some((t: string) => t.includes('unreachable:NoSchedule')),
      );
      for (const n of NODES) cluster.infra.heal(n);
      const last = {
        ready: all['a1-1'].ready,
        taints: all['a1-1'].taints.filter((t: string) => !t.includes('NoExecute')),
      };
      return { tainted, all: { ...all, 'a1-1': last } };
    });
    expect(r.embedded).toEqual(r.real);
  }, 40_000);
});
