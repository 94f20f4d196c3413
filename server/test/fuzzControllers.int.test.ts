// Property-based fuzzing (fast-check) of the custom resources and annotations Palisade's
// controllers read, written through the API of an embedded cluster whose console leads (the
// aggregator, the generator, the fencing controller and the instance-ID collector all run, and
// the NodeFence and epoch webhooks are registered): PodProtectors, FencePolicies and NodeFences
// generated from the CRDs' own openAPIV3Schema (server/test/fuzzCrd.ts: hostile values the
// schema admits), Deployments and StatefulSets the generator selects with hostile rollout
// settings and cell annotations, and workloads with hostile instance-ID maps. The API server
// admits or refuses each (never a 500); none stops a loop: afterwards every loop still runs,
// every watch is still synced, and a well-formed object written after them is still reconciled —
// a protector aggregated, a workload given its protector, a fence for a node that does not exist
// cancelled — and the console still answers for what was written.
// FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> scales it; FUZZ_CASES=<n> sets a floor per boundary.
import * as k8s from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION as FENCING_API } from '../../lib/fencing/types.js';
import { policyWebhookAway } from '../fencing/test/policyWebhookAway.js';
import { INSTANCE_IDS_ANNOTATION, INSTANCE_IDS_LABEL } from '../../lib/instanceIds/types.js';
import { ANNOTATIONS, API_VERSION as PROTECTION_API } from '../../lib/protection/types.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { EmbeddedCluster } from '../../sim/cluster.js';
import type { Console } from '../console.js';
import { createFixturePods, markReady } from '../protection/test/protectionHarness.js';
import { DEFAULT_LEADER_ELECTION as LEASE } from '../runtime/manager.js';
import {
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  hostileString,
  reporter,
  type Size,
} from '../trpc/test/fuzzInputs.js';
import { trpcClient } from './client.js';
import { type ClusterAndConsole, startClusterAndConsole } from './consoleHarness.js';
import {
  crdObject,
  crdSchema,
  dateTime,
  FENCE_POLICY_CRD,
  labelKey,
  labelValue,
  NODE_FENCE_CRD,
  PROTECTOR_CRD,
} from './fuzzCrd.js';
import { watchProcess } from './processWatch.js';

const CLUSTER = 'palisade-embedded';
const NS = 'fuzz';
/** hostile text stays short here: every case is a write the cluster stores and watches deliver */
const SIZE: Size = { string: 300, depth: 20 };
/** a control object is written (and must be reconciled) after this many hostile ones (at most 50 controls a run) */
const controlEvery = (cases: number) => Math.max(20, Math.ceil(cases / 50));
/**
 * How long a control may wait for its loop: each loop works through the round's hostile objects
 * (and their deletions) first, one write after another, on two shared cores.
 */
const CONTROL_WAIT_MS = 120_000;
const CONTROL_LABELS = { app: 'control' };

let h: ClusterAndConsole;
let cluster: EmbeddedCluster;
let c: Console;
let custom: k8s.CustomObjectsApi;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
const watch = watchProcess();
let seq = 0;
const unique = (prefix: string) => `${prefix}-${seq++}`;

beforeAll(async () => {
  watch.start();
  h = await startClusterAndConsole({
    name: 'controllers-fuzz',
    rack: 'c1',
    count: 2,
    console: {
      fencing: true,
      protection: { webhook: { register: true } },
      instanceIdSweepMs: 1_000,
    },
  });
  ({ cluster, console: c } = h);
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
  apps = cluster.kc.makeApiClient(k8s.AppsV1Api);
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  // the pods every control protector counts: two, Ready for a minute
  await createFixturePods(core, NS, ['control-0', 'control-1'], CONTROL_LABELS);
  for (const n of ['control-0', 'control-1']) await markReady(core, NS, n, new Date(Date.now() - 60_000));
  await eventually(() => c.runtime.all().every((m) => m.isLeader()), 'this console leads', 60_000);
}, 120_000);

afterAll(async () => {
  watch.stop();
  await h?.stop();
});

/** A write's outcome: admitted, or refused by the API server with a 4xx saying why. */
async function write(p: Promise<unknown>, shown: () => string): Promise<'admitted' | 'refused'> {
  try {
    await p;
    return 'admitted';
  } catch (e) {
    const code = (e as { code?: number }).code;
    expect(
      code,
      `${shown()}: ${String((e as { body?: unknown }).body ?? e).slice(0, 400)}`,
    ).toBeGreaterThanOrEqual(400);
    expect(code, `${shown()}: ${String((e as { body?: unknown }).body ?? e).slice(0, 400)}`).toBeLessThan(
      500,
    );
    return 'refused';
  }
}

/** Every loop of the runtime still runs, and every watch of the console is synced. */
async function loopsRunning() {
  await eventually(
    () =>
      c.runtime.all().every((m) => m.isLeader() && m.loops.every((l) => l.running)) &&
      [...c.clusters.values()].every((x) => x.isSynced()),
    'every loop running and every watch synced',
    30_000,
  );
}

const protectorApi = { group: 'podseidon.kubewharf.io', version: 'v1alpha1', plural: 'podprotectors' };
const fenceApi = { group: 'palisade.dev', version: 'v1alpha1' };
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** metadata the API server accepts: a fresh name, labels and annotations with hostile values */
const metadata = (prefix: string, namespace?: string) =>
  fc
    .record({
      labels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
      annotations: fc.dictionary(labelKey, hostileString(SIZE), { maxKeys: 3 }),
    })
    .map((m) => ({ name: unique(prefix), ...(namespace ? { namespace } : {}), ...m }));

// ---- the loops, fuzzed one kind at a time ---------------------------------------------------

interface Kind {
  name: string;
  defaultCases: number;
  /** one hostile object (or several writes), through the API */
  hostile: fc.Arbitrary<() => Promise<'admitted' | 'refused'>>;
  /** a well-formed object, and the proof its loop reconciled it */
  control(i: number): Promise<void>;
  /** remove what the hostile writes left (between rounds, so the store stays small) */
  cleanup(): Promise<void>;
  /** around the whole fuzz of the kind */
  before?(): Promise<void>;
  after?(): Promise<void>;
}

/**
 * The FencePolicy webhook refuses at write time what the controller cannot read; policies can still
 * reach the controller without it (written before it existed, or while it was not registered), and
 * those must stop no loop either. So the FencePolicy fuzz runs with that webhook taken out of
 * palisade-nodefences (registered once at startup), and puts it back afterwards.
 */
let restorePolicyWebhook: (() => Promise<void>) | undefined;

const created = {
  protectors: [] as string[],
  workloads: [] as [string, string][],
  policies: [] as string[],
  fences: [] as string[],
};

const protectors = crdObject(crdSchema(PROTECTOR_CRD), PROTECTION_API, 'PodProtector', {
  size: SIZE,
  metadata: metadata('ppr', NS),
  maxItems: 4,
});
const policies = crdObject(crdSchema(FENCE_POLICY_CRD), FENCING_API, 'FencePolicy', {
  size: SIZE,
  metadata: metadata('fp'),
  maxItems: 4,
});
const fences = crdObject(crdSchema(NODE_FENCE_CRD), FENCING_API, 'NodeFence', {
  size: SIZE,
  metadata: metadata('nf'),
  maxItems: 4,
});

const KINDS: Kind[] = [
  {
    name: 'PodProtector (aggregator, webhook store, generator)',
    defaultCases: 40,
    hostile: protectors.map((o) => async () => {
      const { status, ...body } = o as Record<string, any>;
      const name = body.metadata.name as string;
      const shown = () => `PodProtector ${JSON.stringify(o).slice(0, 600)}`;
      const r = await write(
        custom.createNamespacedCustomObject({ ...protectorApi, namespace: NS, body }),
        shown,
      );
      if (r === 'admitted') {
        created.protectors.push(name);
        // a status as hostile as the spec, where the aggregator and the webhook read it
        if (status)
          await write(
            custom.patchNamespacedCustomObjectStatus(
              { ...protectorApi, namespace: NS, name, body: { status } },
              mergePatch,
            ),
            shown,
          );
      }
      return r;
    }),
    async control(i) {
      const name = `control-ppr-${i}`;
      await custom.createNamespacedCustomObject({
        ...protectorApi,
        namespace: NS,
        body: {
          apiVersion: PROTECTION_API,
          kind: 'PodProtector',
          metadata: { name },
          spec: { minAvailable: 1, selector: { matchLabels: CONTROL_LABELS } },
        },
      });
      await eventually(
        async () => {
          const p: any = await custom.getNamespacedCustomObject({ ...protectorApi, namespace: NS, name });
          return p.status?.summary?.aggregatedAvailableReplicas === 2;
        },
        `${name} aggregated: 2 available`,
        CONTROL_WAIT_MS,
      );
      created.protectors.push(name);
    },
    async cleanup() {
      for (const name of created.protectors.splice(0))
        await custom
          .deleteNamespacedCustomObject({ ...protectorApi, namespace: NS, name })
          .catch(() => undefined);
    },
  },
  {
    name: 'Deployment and StatefulSet (generator)',
    defaultCases: 30,
    hostile: fc
      .record({
        kind: fc.constantFrom('Deployment', 'StatefulSet'),
        meta: metadata('wl', NS),
        replicas: fc.oneof(fc.nat(3), fc.constant(0)),
        minReadySeconds: fc.oneof(fc.nat(10), fc.constantFrom(0, 2 ** 31 - 1)),
        strategy: fc.oneof(
          fc.constant(undefined),
          fc.record({ type: fc.constant('Recreate') }),
          fc.record({
            type: fc.constant('RollingUpdate'),
            rollingUpdate: fc.record(
              {
                maxUnavailable: fc.oneof(
                  fc.nat(5),
                  fc.constantFrom(0, 2 ** 31 - 1, '0%', '1%', '50%', '100%'),
                ),
                maxSurge: fc.oneof(fc.nat(5), fc.constantFrom(0, '0%', '25%', '100%')),
              },
              { requiredKeys: [] },
            ),
          }),
        ),
        removeCells: fc.option(
          fc.oneof(hostileString(SIZE), fc.constantFrom('palisade-embedded', ',,', ' a , b ')),
          { nil: undefined },
        ),
        protect: fc.oneof(
          { weight: 5, arbitrary: fc.constant('true') },
          { weight: 1, arbitrary: fc.constantFrom('false', 'TRUE', '') },
        ),
        selector: fc.oneof(
          fc.constant(undefined),
          fc.record({
            key: labelKey,
            op: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist'),
            values: fc.array(labelValue, { minLength: 1, maxLength: 2 }),
          }),
        ),
      })
      .map((w) => async () => {
        const app = w.meta.name;
        const exprs = w.selector
          ? [
              {
                key: w.selector.key,
                operator: w.selector.op,
                ...(['In', 'NotIn'].includes(w.selector.op) ? { values: w.selector.values } : {}),
              },
            ]
          : [];
        // the template's labels satisfy the selector (the API server insists); pods never schedule
        const podLabels: Record<string, string> = { app };
        for (const e of exprs) if (e.operator === 'In') podLabels[e.key] = e.values![0];
        if (exprs.some((e) => e.operator === 'NotIn' && e.key === 'app' && e.values?.includes(app)))
          return 'refused' as const;
        if (exprs.some((e) => e.operator === 'DoesNotExist' && e.key === 'app')) return 'refused' as const;
        if (exprs.some((e) => e.operator === 'Exists'))
          for (const e of exprs) if (e.operator === 'Exists') podLabels[e.key] = '';
        const spec: any = {
          replicas: w.replicas,
          minReadySeconds: w.minReadySeconds,
          selector: { matchLabels: { app }, matchExpressions: exprs },
          template: {
            metadata: { labels: podLabels },
            spec: {
              nodeSelector: { 'fuzz.palisade.dev/never': 'true' },
              containers: [{ name: 'c', image: 'x' }],
            },
          },
        };
        if (w.kind === 'Deployment') {
          if (w.strategy) spec.strategy = w.strategy;
        } else {
          spec.serviceName = app;
          if (w.strategy?.type === 'RollingUpdate')
            spec.updateStrategy = {
              type: 'RollingUpdate',
              rollingUpdate: { maxUnavailable: w.strategy.rollingUpdate.maxUnavailable ?? 1 },
            };
          else if (w.strategy) spec.updateStrategy = { type: 'OnDelete' };
        }
        const body = {
          metadata: {
            ...w.meta,
            labels: { ...w.meta.labels, 'podseidon.kubewharf.io/protect': w.protect },
            annotations: {
              ...w.meta.annotations,
              ...(w.removeCells !== undefined ? { [ANNOTATIONS.removeCellOnce]: w.removeCells } : {}),
            },
          },
          spec,
        };
        const shown = () => `${w.kind} ${JSON.stringify(body).slice(0, 600)}`;
        const r = await write(
          w.kind === 'Deployment'
            ? apps.createNamespacedDeployment({ namespace: NS, body })
            : apps.createNamespacedStatefulSet({ namespace: NS, body }),
          shown,
        );
        if (r === 'admitted') created.workloads.push([w.kind, w.meta.name]);
        return r;
      }),
    async control(i) {
      const name = `control-wl-${i}`;
      await apps.createNamespacedDeployment({
        namespace: NS,
        body: {
          metadata: { name, labels: { 'podseidon.kubewharf.io/protect': 'true' } },
          spec: {
            replicas: 4,
            selector: { matchLabels: { app: name } },
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
            template: {
              metadata: { labels: { app: name } },
              spec: {
                nodeSelector: { 'fuzz.palisade.dev/never': 'true' },
                containers: [{ name: 'c', image: 'x' }],
              },
            },
          },
        },
      });
      created.workloads.push(['Deployment', name]);
      await eventually(
        async () => {
          const p: any = await custom
            .getNamespacedCustomObject({ ...protectorApi, namespace: NS, name: `deployment-${name}` })
            .catch(() => undefined);
          return p?.spec?.minAvailable === 3;
        },
        `the generator made deployment-${name} with minAvailable 3`,
        CONTROL_WAIT_MS,
      );
    },
    async cleanup() {
      for (const [kind, name] of created.workloads.splice(0))
        await (kind === 'Deployment'
          ? apps.deleteNamespacedDeployment({ namespace: NS, name })
          : apps.deleteNamespacedStatefulSet({ namespace: NS, name })
        ).catch(() => undefined);
    },
  },
  {
    name: 'FencePolicy and NodeFence (fencing controller, NodeFence webhooks)',
    defaultCases: 60,
    before: async () => {
      restorePolicyWebhook = await policyWebhookAway(cluster.kc);
    },
    after: () => restorePolicyWebhook?.() ?? Promise.resolve(),
    hostile: fc
      .oneof(
        policies.map((p) => ['policy', p] as const),
        fences.map((f) => ['fence', f] as const),
      )
      .map(([what, o]) => async () => {
        const { status, ...body } = o as Record<string, any>;
        if (what === 'policy') {
          // it may say anything, but it never selects a node of this cluster: nothing is fenced for real
          body.spec = {
            ...body.spec,
            nodeSelector: {
              ...body.spec.nodeSelector,
              matchLabels: { ...body.spec.nodeSelector?.matchLabels, 'fuzz.palisade.dev/never': 'true' },
            },
          };
        } else if (/^c1-\d+$/.test(body.spec.nodeName)) body.spec.nodeName = `not-${body.spec.nodeName}`;
        const plural = what === 'policy' ? 'fencepolicies' : 'nodefences';
        const shown = () => `${what} ${JSON.stringify(o).slice(0, 600)}`;
        const r = await write(custom.createClusterCustomObject({ ...fenceApi, plural, body }), shown);
        if (r !== 'admitted') return r;
        (what === 'policy' ? created.policies : created.fences).push(body.metadata.name);
        if (status && what === 'fence')
          await write(
            custom.patchClusterCustomObjectStatus(
              { ...fenceApi, plural, name: body.metadata.name, body: { status } },
              mergePatch,
            ),
            shown,
          );
        return r;
      }),
    async control(i) {
      const name = `control-ghost-${i}`;
      await custom.createClusterCustomObject({
        ...fenceApi,
        plural: 'nodefences',
        body: {
          apiVersion: FENCING_API,
          kind: 'NodeFence',
          metadata: { name },
          spec: { nodeName: name, policy: 'control-none' },
        },
      });
      created.fences.push(name);
      await eventually(
        async () => {
          const f: any = await custom.getClusterCustomObject({ ...fenceApi, plural: 'nodefences', name });
          return f.status?.phase === 'Cancelled';
        },
        `${name} (no such node) reconciled: Cancelled`,
        CONTROL_WAIT_MS,
      );
    },
    async cleanup() {
      for (const name of created.fences.splice(0))
        await custom
          .deleteClusterCustomObject({ ...fenceApi, plural: 'nodefences', name })
          .catch(() => undefined);
      for (const name of created.policies.splice(0))
        await custom
          .deleteClusterCustomObject({ ...fenceApi, plural: 'fencepolicies', name })
          .catch(() => undefined);
    },
  },
  {
    name: 'instance-ID maps (collector, console)',
    defaultCases: 30,
    hostile: fc
      .record({
        meta: metadata('ids', NS),
        replicas: fc.nat(3),
        map: fc.oneof(
          fc
            .dictionary(
              fc.oneof(fc.nat(5).map(String), fc.constantFrom('01', '-1', 'x', '')),
              fc.oneof(fc.constantFrom('gone-0', 'gone-1'), hostileString(SIZE)),
              { maxKeys: 4 },
            )
            .map((m) => JSON.stringify(m)),
          hostileString(SIZE),
          fc.constantFrom(
            '{"0":"a","0":"b"}',
            '[]',
            'null',
            '{',
            `{${Array.from({ length: 3000 }, (_, i) => `"${i}":"p-${i}"`).join(',')}}`,
          ),
        ),
      })
      .map((w) => async () => {
        const body = {
          metadata: {
            ...w.meta,
            labels: { ...w.meta.labels, [INSTANCE_IDS_LABEL]: 'true' },
            annotations: { ...w.meta.annotations, [INSTANCE_IDS_ANNOTATION]: w.map },
          },
          spec: {
            replicas: w.replicas,
            selector: { matchLabels: { app: w.meta.name } },
            template: {
              metadata: { labels: { app: w.meta.name } },
              spec: {
                nodeSelector: { 'fuzz.palisade.dev/never': 'true' },
                containers: [{ name: 'c', image: 'x' }],
              },
            },
          },
        };
        const r = await write(
          apps.createNamespacedDeployment({ namespace: NS, body }),
          () => `Deployment ${JSON.stringify(body).slice(0, 600)}`,
        );
        if (r === 'admitted') created.workloads.push(['Deployment', w.meta.name]);
        return r;
      }),
    async control() {
      // the console still reads every map it was given: the list answers, each invalid map said so
      const list = await trpcClient(c.url, cluster.users.viewer.token).instanceIds.list.query({
        cluster: CLUSTER,
      });
      expect(Array.isArray(list.rows)).toBe(true);
      for (const [, name] of created.workloads) {
        const one = await trpcClient(c.url, cluster.users.viewer.token)
          .instanceIds.get.query({ cluster: CLUSTER, namespace: NS, kind: 'Deployment', name })
          .catch((e) => e);
        expect(
          (one as { data?: { httpStatus?: number } })?.data?.httpStatus ?? 200,
          `instanceIds.get ${name}`,
        ).toBeLessThan(500);
      }
    },
    async cleanup() {
      for (const [kind, name] of created.workloads.splice(0))
        await (kind === 'Deployment'
          ? apps.deleteNamespacedDeployment({ namespace: NS, name })
          : apps.deleteNamespacedStatefulSet({ namespace: NS, name })
        ).catch(() => undefined);
    },
  },
  {
    name: 'Lease (leader election, node heartbeats)',
    defaultCases: 30,
    hostile: fc
      .record({
        which: fc.constantFrom('controller', 'node'),
        holderIdentity: fc.oneof(fc.constantFrom('', 'another-console', 'c1-1'), hostileString(SIZE)),
        leaseDurationSeconds: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.constantFrom(1, 2 ** 31 - 1)),
        // a new holder writes leaseTransitions + 1: an int32 at its last value could never be taken
        leaseTransitions: fc.oneof(fc.nat(10), fc.constantFrom(2 ** 31 - 1_000)),
        acquireTime: dateTime,
        renewTime: dateTime,
        node: fc.constantFrom('c1-9', 'ghost-node', 'c1-1'),
      })
      .map((l) => async () => {
        const coordination = cluster.kc.makeApiClient(k8s.CoordinationV1Api);
        const micro = (t: string) =>
          `${new Date(Date.parse(t)).toISOString().slice(0, 23)}000Z` as unknown as k8s.V1MicroTime;
        const spec = {
          holderIdentity: l.holderIdentity,
          leaseDurationSeconds: l.leaseDurationSeconds,
          leaseTransitions: l.leaseTransitions,
          acquireTime: micro(l.acquireTime),
          renewTime: micro(l.renewTime),
        };
        const [namespace, name] =
          l.which === 'controller' ? [LEASE.namespace, LEASE.name] : ['kube-node-lease', l.node];
        const shown = () => `Lease ${namespace}/${name} ${JSON.stringify(spec)}`;
        const current = await coordination.readNamespacedLease({ namespace, name }).catch(() => undefined);
        if (!current)
          return write(
            coordination.createNamespacedLease({ namespace, body: { metadata: { name }, spec } }),
            shown,
          );
        // the real kubelet and elector write too: a lost race is a refusal like any other
        return write(
          coordination.replaceNamespacedLease({ namespace, name, body: { ...current, spec } }),
          shown,
        );
      }),
    async control() {
      // released: this console takes the Lease again, its loops run, and they still reconcile
      const coordination = cluster.kc.makeApiClient(k8s.CoordinationV1Api);
      await eventually(
        async () => {
          const l = await coordination.readNamespacedLease({ namespace: LEASE.namespace, name: LEASE.name });
          await coordination.replaceNamespacedLease({
            namespace: LEASE.namespace,
            name: LEASE.name,
            body: { ...l, spec: { ...l.spec, holderIdentity: '', leaseDurationSeconds: 1 } },
          });
          return true;
        },
        'the controller Lease released',
        30_000,
      );
      await eventually(() => c.runtime.all().every((m) => m.isLeader()), 'this console leads again', 60_000);
      await KINDS[0].control(1_000 + seq++);
      await KINDS[0].cleanup();
    },
    async cleanup() {},
  },
];

describe('fuzzing what the controllers read, through the API of a cluster they run on (fast-check)', () => {
  for (const kind of KINDS) {
    const cases = fuzzCases(kind.defaultCases);
    it(
      `${kind.name}: ${cases} hostile objects stop no loop; a well-formed one after them is reconciled`,
      async () => {
        const started = performance.now();
        const outcome = { admitted: 0, refused: 0, controls: 0 };
        let since = 0;
        await kind.before?.();
        try {
          await fc.assert(
            fc.asyncProperty(kind.hostile, async (writeIt) => {
              outcome[await writeIt()]++;
              if (++since < controlEvery(cases)) return;
              since = 0;
              await kind.control(outcome.controls++);
              await loopsRunning();
              await kind.cleanup();
            }),
            { numRuns: cases, seed: FUZZ_SEED, reporter, endOnFailure: true },
          );
        } finally {
          await kind.after?.();
        }
        await kind.control(outcome.controls++);
        await loopsRunning();
        await kind.cleanup();
        expect(
          outcome.admitted,
          'the API server admitted none: the generator no longer makes what the schema admits',
        ).toBeGreaterThan(0);
        fuzzReport(`CRD/objects: ${kind.name}`, cases, performance.now() - started, JSON.stringify(outcome));
      },
      fuzzTimeout(cases, 1_500),
    );
  }

  it('afterwards: no unhandled rejection, no uncaught exception, every loop running', async () => {
    watch.expectClean();
    await loopsRunning();
  });
});
