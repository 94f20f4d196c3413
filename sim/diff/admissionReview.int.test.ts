// Differential: the AdmissionReview a validating webhook receives for a pod DELETE (with
// options), a pods/eviction CREATE and a dry-run DELETE, on the embedded API server and on
// kube-apiserver v1.34.10. Every request field is compared after normalising uids, times
// and the back ends' own names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backends, call, onBoth, startBackends } from './backends.js';
import { normalise } from './normalise.js';
import { type Hooks, namespace, pod, registerHook, startHooks } from './scenario.js';

let bs: Backends;
let hooks: Hooks;
const NS = 'diff-reviews';
const pods = `/api/v1/namespaces/${NS}/pods`;

beforeAll(async () => {
  [bs, hooks] = await Promise.all([startBackends(), startHooks()]);
  await onBoth(bs, (b) => namespace(b, NS));
  await registerHook(bs, hooks, 'reviews', NS, ['CREATE', 'DELETE'], ['pods', 'pods/eviction']);
  // the real server sees a new webhook configuration through an informer: wait for it
  await onBoth(bs, async (b) => {
    await call(b, 'POST', pods, pod('probe'));
    await eventually(async () => {
      await call(b, 'DELETE', `${pods}/probe?dryRun=All`);
      return hooks[b.name].reviews.some((r) => r.request.operation === 'DELETE');
    }, `${b.name}: webhook active`);
  });
}, 120_000);
afterAll(async () => {
  await bs?.stop();
  await hooks?.stop();
});

/** the reviews a sequence of requests causes, after the pods it needs exist */
const reviewsOf = (setup: string[], act: (b: Backends['real']) => Promise<unknown>) =>
  onBoth(bs, async (b) => {
    for (const name of setup) await call(b, 'POST', pods, pod(name, { nodeName: 'node-x' }));
    const hook = hooks[b.name];
    hook.reviews.length = 0;
    const reply = await act(b);
    return { reply, reviews: hook.reviews.map((r) => r.request) };
  });

const view = (x: { reply: any; reviews: any[] }) => ({
  code: x.reply.code,
  reviews: normalise(x.reviews),
});

describe('AdmissionReviews for deletions', () => {
  it('a DELETE with grace period and propagation policy', async () => {
    const r = await reviewsOf(['del'], (b) =>
      call(b, 'DELETE', `${pods}/del`, { gracePeriodSeconds: 7, propagationPolicy: 'Foreground' }),
    );
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  it('a pods/eviction CREATE with delete options', async () => {
    const r = await reviewsOf(['evicted'], (b) =>
      call(b, 'POST', `${pods}/evicted/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: 'evicted' },
        deleteOptions: { gracePeriodSeconds: 3 },
      }),
    );
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  it('a DELETE collection with preconditions-free options (one review per pod)', async () => {
    const r = await reviewsOf(['coll-a', 'coll-b'], (b) =>
      call(b, 'DELETE', `${pods}?fieldSelector=metadata.name%3Dcoll-a`, { propagationPolicy: 'Orphan' }),
    );
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  it('a dry-run DELETE', async () => {
    const r = await reviewsOf(['dry'], (b) => call(b, 'DELETE', `${pods}/dry?dryRun=All`));
    expect(view(r.embedded)).toEqual(view(r.real));
  });
});

describe('the fieldManager reaches webhooks (Palisade stamps its leader epoch there)', () => {
  it('a CREATE with ?fieldManager: request.options carries it on both', async () => {
    const r = await reviewsOf([], (b) =>
      call(b, 'POST', `${pods}?fieldManager=palisade-leader-e3`, pod('stamped')),
    );
    expect(view(r.embedded)).toEqual(view(r.real));
    expect(r.real.reviews[0]?.options?.fieldManager).toBe('palisade-leader-e3');
  });
});

describe('dry-run evictions', () => {
  it('a pods/eviction CREATE with dryRun', async () => {
    const r = await reviewsOf(['dry-evicted'], (b) =>
      call(b, 'POST', `${pods}/dry-evicted/eviction?dryRun=All`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: 'dry-evicted' },
      }),
    );
    expect(view(r.embedded)).toEqual(view(r.real));
  });
});
