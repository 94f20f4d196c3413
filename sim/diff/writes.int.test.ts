// Differential: what a write stores, on the embedded API server and on kube-apiserver
// v1.34.10 — nulls in JSON merge patches (pruned where a value lands on no object), status
// fields the typed API drops when zero or empty (omitempty), and a CRD's defaults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backend, type Backends, call, onBoth, startBackends } from './backends.js';
import { normalise } from './normalise.js';
import { namespace } from './scenario.js';

let bs: Backends;
const NS = 'diff-writes';
const merge = { 'content-type': 'application/merge-patch+json' };

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.diff.palisade.test' },
  spec: {
    group: 'diff.palisade.test',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
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
              status: {
                type: 'object',
                properties: {
                  lastEventTime: { type: 'string', nullable: true },
                  cells: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { name: { type: 'string' }, at: { type: 'string', nullable: true } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
const gadgets = `/apis/diff.palisade.test/v1/namespaces/${NS}/gadgets`;

beforeAll(async () => {
  bs = await startBackends();
  await onBoth(bs, async (b) => {
    await namespace(b, NS);
    const created = await call(b, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (created.code !== 201) throw new Error(`${b.name}: CRD: ${created.code} ${created.text}`);
    await eventually(async () => (await call(b, 'GET', gadgets)).code === 200, `${b.name}: CRD served`);
  });
}, 120_000);
afterAll(() => bs?.stop());

const patchStatus = (b: Backend, path: string, status: unknown) =>
  call(b, 'PATCH', `${path}/status`, { status }, merge);

describe('JSON merge patch nulls', () => {
  it('a null is pruned where it lands on no object, even inside a list; a null key removes', async () => {
    const r = await onBoth(bs, async (b) => {
      await call(b, 'POST', gadgets, {
        apiVersion: 'diff.palisade.test/v1',
        kind: 'Gadget',
        metadata: { name: 'g' },
      });
      const first = await patchStatus(b, `${gadgets}/g`, {
        lastEventTime: null,
        cells: [{ name: 'a', at: null }],
      });
      await patchStatus(b, `${gadgets}/g`, { lastEventTime: '2026-01-01T00:00:00Z' });
      const removed = await patchStatus(b, `${gadgets}/g`, { lastEventTime: null });
      return { first: first.body.status, removed: removed.body.status };
    });
    expect(r.embedded).toEqual(r.real);
  });
});

describe('zero and empty status fields (omitempty)', () => {
  // the response of the status write itself: what the server stored from it
  const sent = <T extends Record<string, unknown>>(status: any, keys: T) =>
    Object.fromEntries(Object.keys(keys).map((k) => [k, status?.[k]]));

  it('Deployment, ReplicaSet, StatefulSet and PodDisruptionBudget status', async () => {
    const deployment = {
      replicas: 0,
      updatedReplicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      unavailableReplicas: 0,
      observedGeneration: 1,
      conditions: [],
    };
    const replicaSet = {
      replicas: 0,
      fullyLabeledReplicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      observedGeneration: 0,
    };
    const statefulSet = {
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      availableReplicas: 0,
      currentRevision: '',
    };
    const pdb = {
      disruptedPods: {},
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    };
    const template = {
      metadata: { labels: { app: 'z' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
    };
    const spec = { replicas: 0, selector: { matchLabels: { app: 'z' } }, template };
    const r = await onBoth(bs, async (b) => {
      const apps = `/apis/apps/v1/namespaces/${NS}`;
      const pdbs = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
      await call(b, 'POST', `${apps}/deployments`, { metadata: { name: 'z' }, spec });
      await call(b, 'POST', `${apps}/statefulsets`, {
        metadata: { name: 'z' },
        spec: { ...spec, serviceName: 'z' },
      });
      await call(b, 'POST', `${apps}/replicasets`, { metadata: { name: 'z' }, spec });
      await call(b, 'POST', pdbs, {
        metadata: { name: 'z' },
        spec: { minAvailable: 0, selector: spec.selector },
      });
      return {
        deployment: sent((await patchStatus(b, `${apps}/deployments/z`, deployment)).body.status, deployment),
        statefulSet: sent(
          (await patchStatus(b, `${apps}/statefulsets/z`, statefulSet)).body.status,
          statefulSet,
        ),
        replicaSet: sent((await patchStatus(b, `${apps}/replicasets/z`, replicaSet)).body.status, replicaSet),
        pdb: sent((await patchStatus(b, `${pdbs}/z`, pdb)).body.status, pdb),
      };
    });
    expect(r.embedded).toEqual(r.real);
  });
});

describe('CustomResourceDefinition defaults', () => {
  it('a created CRD has the same spec, conversion strategy included', async () => {
    const r = await onBoth(bs, async (b) => {
      const x = await call(
        b,
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
      );
      return x.body.spec;
    });
    expect(normalise(r.embedded)).toEqual(normalise(r.real));
  });
});

describe('MicroTime fields (Lease renewTime, Event eventTime)', () => {
  it('take exactly six fractional digits: a JavaScript Date (three) or none is a 400 naming the layout', async () => {
    const lease = (name: string, renewTime: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime },
    });
    const r = await onBoth(bs, async (b) => {
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
      const out: Record<string, unknown> = {};
      for (const [name, t] of [
        ['micro', '2026-11-24T10:00:00.123000Z'],
        ['millis', '2026-11-24T10:00:00.123Z'],
        ['seconds', '2026-11-24T10:00:00Z'],
      ]) {
        const res = await call(b, 'POST', leases, lease(name, t));
        out[name] = { code: res.code, message: res.body?.message, renewTime: res.body?.spec?.renewTime };
      }
      const renewed = await call(
        b,
        'PATCH',
        `${leases}/micro`,
        { spec: { renewTime: '2026-11-24T10:00:01.5Z' } },
        merge,
      );
      // the real message quotes the patched object, managedFields and all: compare the parse error
      const m = String(renewed.body?.message ?? '');
      out.patch = {
        code: renewed.code,
        reason: renewed.body?.reason,
        start: m.slice(0, m.indexOf('Invalid value')),
        error: m.slice(m.indexOf('": parsing time')),
        field: renewed.body?.details?.causes?.[0]?.field,
      };
      const event = await call(b, 'POST', `/api/v1/namespaces/${NS}/events`, {
        metadata: { name: 'e1' },
        involvedObject: { kind: 'Node', name: 'n1' },
        reason: 'Test',
        message: 'x',
        type: 'Normal',
        eventTime: '2026-11-24T10:00:00.123Z',
        reportingComponent: 'palisade-test',
        reportingInstance: 'i',
        action: 'Test',
      });
      out.event = { code: event.code, message: event.body?.message };
      return out;
    });
    expect(r.embedded).toEqual(r.real);
    expect(r.real).toMatchObject({
      micro: { code: 201, renewTime: '2026-11-24T10:00:00.123000Z' },
      millis: { code: 400 },
      seconds: { code: 400 },
      patch: { code: 422, reason: 'Invalid' },
      event: { code: 400 },
    });
  });
});
