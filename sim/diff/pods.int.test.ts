// Differential: pods on the embedded API server and on a real kube-apiserver v1.34.10 —
// defaults from create and admission, Table columns, graceful deletion (repeat DELETEs,
// preconditions, finalizers), status writes, dry-run values and the AdmissionReviews a
// webhook receives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backend, type Backends, call, onBoth, startBackends } from './backends.js';
import { normalise, seen } from './normalise.js';
import { type Hooks, namespace, pod, registerHook, startHooks } from './scenario.js';

let bs: Backends;
let hooks: Hooks;
const NS = 'diff-pods';
const pods = `/api/v1/namespaces/${NS}/pods`;

beforeAll(async () => {
  [bs, hooks] = await Promise.all([startBackends(), startHooks()]);
  await onBoth(bs, (b) => namespace(b, NS));
}, 120_000);
afterAll(async () => {
  await bs?.stop();
  await hooks?.stop();
});

const post = (b: Backend, body: unknown, query = '') => call(b, 'POST', `${pods}${query}`, body);
const del = (b: Backend, name: string, body?: unknown, query = '') =>
  call(b, 'DELETE', `${pods}/${name}${query}`, body);

describe('pod defaults', () => {
  it('a minimal pod gets the same spec, metadata and status', async () => {
    const r = await onBoth(bs, (b) => post(b, pod('minimal')));
    expect(seen(r.embedded)).toEqual(seen(r.real));
  });

  it('an untagged image, ports, an init container and generateName', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'gen-', labels: { app: 'web' } },
      spec: {
        initContainers: [{ name: 'init', image: 'busybox' }],
        containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }],
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
      },
    };
    const r = await onBoth(bs, (b) => post(b, body));
    expect(seen(r.embedded, { generated: ['gen-'] })).toEqual(seen(r.real, { generated: ['gen-'] }));
  });

  it('automountServiceAccountToken: false, a named ServiceAccount and priority', async () => {
    const r = await onBoth(bs, async (b) => {
      await call(b, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'robot' } });
      return [
        await post(b, pod('no-token', { automountServiceAccountToken: false })),
        await post(b, pod('robot', { serviceAccountName: 'robot' })),
        await post(b, pod('ghost', { serviceAccountName: 'ghost' })),
      ];
    });
    expect(r.embedded.map((x) => seen(x))).toEqual(r.real.map((x) => seen(x)));
  });

  it('Table columns and cells', async () => {
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const r = await onBoth(bs, (b) => call(b, 'GET', `${pods}?labelSelector=app%3Dweb`, undefined, table));
    const cells = (x: ReturnType<typeof seen>) => ({
      ...x,
      body: { ...x.body, rows: x.body.rows?.map((row: any) => ({ ...row, cells: row.cells.slice(0, 4) })) },
    });
    expect(cells(seen(r.embedded, { generated: ['gen-'] }))).toEqual(
      cells(seen(r.real, { generated: ['gen-'] })),
    );
  });
});

describe('graceful deletion', () => {
  it('a repeat DELETE of a terminating pod is not admitted and shows the pending grace', async () => {
    await registerHook(bs, hooks, 'deletes', NS, ['DELETE']);
    const r = await onBoth(bs, async (b) => {
      const hook = hooks[b.name];
      // the real server sees a new webhook configuration through an informer: wait for it
      await post(b, pod('probe'));
      await eventually(async () => {
        await del(b, 'probe', undefined, '?dryRun=All');
        return hook.reviews.length > 0;
      }, `${b.name}: webhook active`);
      hook.reviews.length = 0;
      await post(b, pod('grace', { nodeName: 'node-x' }));
      const first = await del(b, 'grace');
      const again = await del(b, 'grace');
      const longer = await del(b, 'grace', { gracePeriodSeconds: 60 });
      const afterRepeats = hook.reviews.length;
      const shorter = await del(b, 'grace', { gracePeriodSeconds: 5 });
      const reviews = hook.reviews.map((x) => x.request);
      await del(b, 'grace', { gracePeriodSeconds: 0 });
      return { first, again, longer, afterRepeats, shorter, reviews };
    });
    const view = (x: typeof r.real) => ({
      first: seen(x.first),
      again: seen(x.again),
      longer: seen(x.longer),
      afterRepeats: x.afterRepeats,
      shorter: seen(x.shorter),
      reviews: normalise(x.reviews),
    });
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  it('precondition failures, bad dryRun values and finalizers added while terminating', async () => {
    const r = await onBoth(bs, async (b) => {
      const created = await post(
        b,
        pod('held', { nodeName: 'node-x' }, { finalizers: ['palisade.test/hold'] }),
      );
      const uid = created.body.metadata.uid;
      const out = {
        uid: await del(b, 'held', { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }),
        rv: await del(b, 'held', { preconditions: { resourceVersion: '1' } }),
        dryRunQuery: await post(b, pod('dry'), '?dryRun=Some'),
        dryRunBody: await del(b, 'held', { dryRun: ['Some'] }),
        deleted: await del(b, 'held', { preconditions: { uid } }),
        finalizer: await call(
          b,
          'PATCH',
          `${pods}/held`,
          { metadata: { finalizers: ['palisade.test/hold', 'palisade.test/more'] } },
          { 'content-type': 'application/merge-patch+json' },
        ),
      };
      await call(
        b,
        'PATCH',
        `${pods}/held`,
        { metadata: { finalizers: null } },
        { 'content-type': 'application/merge-patch+json' },
      );
      return out;
    });
    const view = (x: typeof r.real) =>
      Object.fromEntries(Object.entries(x).map(([k, v]) => [k, seen(v, { digitsIn: ['message'] })]));
    expect(view(r.embedded)).toEqual(view(r.real));
  });
});

describe('status writes', () => {
  it('pods/status keeps label and annotation changes but not spec or ownerReferences', async () => {
    const r = await onBoth(bs, async (b) => {
      const created = await post(b, pod('status', {}, { labels: { a: '1' } }));
      const body = structuredClone(created.body);
      body.metadata.labels = { a: '2', b: 'new' };
      body.metadata.annotations = { note: 'x' };
      body.metadata.ownerReferences = [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '11111111-1111-1111-1111-111111111111' },
      ];
      body.spec.activeDeadlineSeconds = 10;
      body.status.message = 'hello';
      return call(b, 'PUT', `${pods}/status/status`, body);
    });
    expect(seen(r.embedded)).toEqual(seen(r.real));
  });
});
