// Differential: cluster-scoped behaviour on the embedded API server and on a real
// kube-apiserver v1.34.10 + kube-controller-manager — node creation (TaintNodesByCondition),
// what every namespace holds, terminating namespaces, evictions against a PDB that is not
// processed yet, and custom resource status pruning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backend, type Backends, call, onBoth, startBackends } from './backends.js';
import { normalise, seen } from './normalise.js';
import { namespace, pod } from './scenario.js';

let bs: Backends;

beforeAll(async () => {
  bs = await startBackends();
}, 120_000);
afterAll(() => bs?.stop());

const get = (b: Backend, path: string) => call(b, 'GET', path);

describe('nodes and namespaces', () => {
  it('a new node gets the not-ready NoSchedule taint', async () => {
    const r = await onBoth(bs, (b) => call(b, 'POST', '/api/v1/nodes', { metadata: { name: 'diff-node' } }));
    expect(seen(r.embedded).body.spec).toEqual(seen(r.real).body.spec);
  });

  it('a namespace holds the default ServiceAccount and the kube-root-ca.crt ConfigMap', async () => {
    const r = await onBoth(bs, async (b) => {
      await namespace(b, 'diff-ns-contents');
      const base = '/api/v1/namespaces/diff-ns-contents';
      await eventually(async () => (await get(b, `${base}/configmaps/kube-root-ca.crt`)).code === 200, 'ca');
      return {
        ns: await get(b, '/api/v1/namespaces/diff-ns-contents'),
        sa: await get(b, `${base}/serviceaccounts/default`),
        cm: await get(b, `${base}/configmaps/kube-root-ca.crt`),
      };
    });
    const view = (x: typeof r.real) => ({ ns: seen(x.ns), sa: seen(x.sa), cm: seen(x.cm) });
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  it('deleting a namespace, and creating into it while it terminates', async () => {
    const r = await onBoth(bs, async (b) => {
      await namespace(b, 'diff-ns-gone');
      const base = '/api/v1/namespaces/diff-ns-gone';
      await call(b, 'POST', `${base}/configmaps`, {
        metadata: { name: 'held', finalizers: ['palisade.test/hold'] },
      });
      const deleted = await call(b, 'DELETE', base);
      const create = await call(b, 'POST', `${base}/configmaps`, { metadata: { name: 'late' } });
      await call(
        b,
        'PATCH',
        `${base}/configmaps/held`,
        { metadata: { finalizers: null } },
        {
          'content-type': 'application/merge-patch+json',
        },
      );
      return { deleted, create };
    });
    const view = (x: typeof r.real) => ({ deleted: seen(x.deleted), create: seen(x.create) });
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  // the real namespace controller writes them after its first pass (~9 s measured), the
  // embedded one after its (0.5 s): the conditions, not their timing, are compared
  it('a terminating namespace reports why it is not gone yet in its conditions', async () => {
    const r = await onBoth(bs, async (b) => {
      await namespace(b, 'diff-ns-held');
      const base = '/api/v1/namespaces/diff-ns-held';
      await call(b, 'POST', `${base}/configmaps`, {
        metadata: { name: 'held', finalizers: ['palisade.test/hold'] },
      });
      await call(b, 'DELETE', base);
      const ns = await eventually(async () => {
        const x = await get(b, base);
        return (x.body.status?.conditions ?? []).some((c: any) => c.type === 'NamespaceFinalizersRemaining')
          ? x
          : undefined;
      }, `${b.name}: namespace conditions`);
      await call(
        b,
        'PATCH',
        `${base}/configmaps/held`,
        { metadata: { finalizers: null } },
        {
          'content-type': 'application/merge-patch+json',
        },
      );
      return ns;
    });
    expect(seen(r.embedded)).toEqual(seen(r.real));
  });
});

describe('evictions', () => {
  // The budget is processed first (by kube-controller-manager on the real one, by the test in
  // the role of the disruption controller on the API-only embedded one): how fast the real
  // controller gets to a new PDB is a race, so the "still being processed" 429 (Retry-After
  // 10) cannot be provoked reliably there; it was measured by hand and is emulated.
  it('against a PDB with no disruptions allowed', async () => {
    const r = await onBoth(bs, async (b) => {
      await namespace(b, 'diff-evict');
      const base = '/api/v1/namespaces/diff-evict';
      await call(
        b,
        'POST',
        `${base}/pods`,
        pod('victim', { nodeName: 'diff-node' }, { labels: { app: 'v' } }),
      );
      // Running, so the budget counts (a Pending pod is evicted without one)
      await call(
        b,
        'PATCH',
        `${base}/pods/victim/status`,
        { status: { phase: 'Running' } },
        {
          'content-type': 'application/merge-patch+json',
        },
      );
      const pdbs = '/apis/policy/v1/namespaces/diff-evict/poddisruptionbudgets';
      await call(b, 'POST', pdbs, {
        metadata: { name: 'budget' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'v' } } },
      });
      if (b.name === 'embedded')
        await call(
          b,
          'PATCH',
          `${pdbs}/budget/status`,
          {
            status: {
              observedGeneration: 1,
              disruptionsAllowed: 0,
              currentHealthy: 0,
              desiredHealthy: 1,
              expectedPods: 1,
            },
          },
          { 'content-type': 'application/merge-patch+json' },
        );
      await eventually(async () => {
        const p = (await get(b, `${pdbs}/budget`)).body;
        return (p.status?.observedGeneration ?? 0) >= p.metadata.generation;
      }, `${b.name}: budget processed`);
      const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'victim' } };
      return call(b, 'POST', `${base}/pods/victim/eviction`, eviction);
    });
    expect(seen(r.embedded)).toEqual(seen(r.real));
  });
});

describe('custom resources', () => {
  it('status writes are pruned to the schema; metadata changes through status are dropped', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.diff.palisade.test' },
      spec: {
        group: 'diff.palisade.test',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                },
              },
            },
          },
        ],
      },
    };
    const r = await onBoth(bs, async (b) => {
      await namespace(b, 'diff-crd');
      await call(b, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      const base = '/apis/diff.palisade.test/v1/namespaces/diff-crd/widgets';
      await eventually(async () => (await get(b, base)).code === 200, `${b.name}: CRD served`);
      const created = await call(b, 'POST', base, {
        apiVersion: 'diff.palisade.test/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { size: 1, unknown: 'x' },
      });
      const body = structuredClone(created.body);
      body.metadata.labels = { through: 'status' };
      body.status = { ready: true, extra: 'dropped' };
      const status = await call(b, 'PUT', `${base}/w/status`, body);
      return { created, status };
    });
    const view = (x: typeof r.real) => ({ created: seen(x.created), status: normalise(seen(x.status)) });
    expect(view(r.embedded)).toEqual(view(r.real));
  });
});
