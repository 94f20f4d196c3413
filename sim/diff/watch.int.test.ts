// Differential: lists and watches on the embedded API server and on a real kube-apiserver
// v1.34.10 — resourceVersion semantics (Exact, future, too old), event type sequences,
// sendInitialEvents' closing BOOKMARK and watches of Tables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type Backend, type Backends, call, onBoth, startBackends, watch } from './backends.js';
import { normalise, seen } from './normalise.js';
import { namespace, pod } from './scenario.js';

let bs: Backends;
const NS = 'diff-watch';
const cms = `/api/v1/namespaces/${NS}/configmaps`;

beforeAll(async () => {
  bs = await startBackends();
  await onBoth(bs, (b) => namespace(b, NS));
}, 120_000);
afterAll(() => bs?.stop());

const rvOf = async (b: Backend) =>
  Number((await call(b, 'GET', `${cms}?limit=1`)).body.metadata.resourceVersion);
const merge = { 'content-type': 'application/merge-patch+json' };
const cm = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  data: { v: '0' },
});

/** event types and the names they carry; a BOOKMARK shows its annotations */
const sequence = (events: { type: string; object: any }[]) =>
  events.map((e) =>
    e.type === 'BOOKMARK'
      ? `BOOKMARK ${JSON.stringify(e.object.metadata.annotations ?? {})}`
      : `${e.type} ${e.object?.metadata?.name ?? JSON.stringify(normalise(e.object, { digitsIn: ['message'] }))}`,
  );

describe('resourceVersion semantics', () => {
  it('a list or watch at a resourceVersion the server has not reached waits, then 504 with Retry-After', async () => {
    const r = await onBoth(bs, async (b) => {
      const future = (await rvOf(b)) + 1000;
      const t0 = Date.now();
      const list = await call(b, 'GET', `${cms}?resourceVersion=${future}`);
      const listMs = Date.now() - t0;
      const t1 = Date.now();
      const w = await watch(b, `${cms}?watch=true&resourceVersion=${future}`);
      // bounded: a server that never answers is a difference to see, not a hang
      // (the real one keeps such a watch open without events; 4 s shows that without a hang)
      await eventually(() => w.ended, `${b.name}: future watch ends`, 4_000).catch(() => w.stop());
      const watchMs = Date.now() - t1;
      return { list, listMs, w, watchMs };
    });
    const view = (x: typeof r.real) => ({
      list: seen(x.list, { digitsIn: ['message'] }),
      listWaitedSeconds: Math.round(x.listMs / 1000),
      watch: { code: x.w.code, events: normalise(x.w.events, { digitsIn: ['message'] }) },
    });
    expect(view(r.embedded)).toEqual(view(r.real));
  });

  it('resourceVersionMatch=Exact at an old resourceVersion, and a watch from before the server started', async () => {
    const r = await onBoth(bs, async (b) => {
      const first = await call(b, 'POST', cms, cm('exact'));
      const rv = first.body.metadata.resourceVersion;
      await call(b, 'PATCH', `${cms}/exact`, { data: { v: '1' } }, merge);
      return {
        exact: await call(b, 'GET', `${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`),
        exactOne: await call(b, 'GET', `${cms}?resourceVersion=1&resourceVersionMatch=Exact`),
        noMatch: await call(b, 'GET', `${cms}?resourceVersionMatch=Exact`),
        watchFrom1: await watch(b, `${cms}?watch=true&resourceVersion=1`),
      };
    });
    await eventually(() => r.embedded.watchFrom1.ended || r.embedded.watchFrom1.events.length, 'embedded');
    await eventually(() => r.real.watchFrom1.ended || r.real.watchFrom1.events.length, 'real');
    r.embedded.watchFrom1.stop();
    r.real.watchFrom1.stop();
    const view = (x: typeof r.real) => ({
      exact: seen(x.exact, { digitsIn: ['message'] }),
      exactOne: seen(x.exactOne, { digitsIn: ['message'] }),
      noMatch: seen(x.noMatch, { digitsIn: ['message'] }),
      watchFrom1: sequence(x.watchFrom1.events),
    });
    expect(view(r.embedded)).toEqual(view(r.real));
  });
});

describe('watch streams', () => {
  it('sendInitialEvents ends the initial ADDED events with an annotated BOOKMARK', async () => {
    const r = await onBoth(bs, async (b) => {
      await call(b, 'POST', cms, cm('initial-a', { set: 'initial' }));
      await call(b, 'POST', cms, cm('initial-b', { set: 'initial' }));
      const w = await watch(
        b,
        `${cms}?watch=true&labelSelector=set%3Dinitial&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      );
      await eventually(
        () => w.events.some((e) => e.type === 'BOOKMARK') || w.ended,
        `${b.name}: bookmark`,
        5_000,
      ).catch(() => undefined);
      w.stop();
      return { code: w.code, events: sequence(w.events), headers: w.headers['content-type'] };
    });
    expect(r.embedded).toEqual(r.real);
  });

  it('sendInitialEvents without allowWatchBookmarks or resourceVersionMatch is refused', async () => {
    const r = await onBoth(bs, async (b) => ({
      noBookmarks: await watch(
        b,
        `${cms}?watch=true&timeoutSeconds=1&labelSelector=set%3Dinitial&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
      ).then(async (w) => {
        await eventually(() => w.ended, `${b.name}: 1 s watch ends`, 10_000);
        return sequence(w.events);
      }),
      noMatch: seen(
        await call(
          b,
          'GET',
          `${cms}?watch=true&timeoutSeconds=1&sendInitialEvents=true&allowWatchBookmarks=true`,
        ),
      ),
      onList: seen(await call(b, 'GET', `${cms}?sendInitialEvents=true`)),
    }));
    expect(r.embedded).toEqual(r.real);
  });

  it('event types for create, update, label-selector exit and a graceful pod deletion', async () => {
    const r = await onBoth(bs, async (b) => {
      const from = await rvOf(b);
      const wc = await watch(b, `${cms}?watch=true&labelSelector=seq%3Dyes&resourceVersion=${from}`);
      const wp = await watch(b, `/api/v1/namespaces/${NS}/pods?watch=true&resourceVersion=${from}`);
      await call(b, 'POST', cms, cm('seq', { seq: 'yes' }));
      await call(b, 'PATCH', `${cms}/seq`, { data: { v: '2' } }, merge);
      await call(b, 'PATCH', `${cms}/seq`, { metadata: { labels: { seq: 'no' } } }, merge);
      await call(b, 'PATCH', `${cms}/seq`, { metadata: { labels: { seq: 'yes' } } }, merge);
      await call(b, 'DELETE', `${cms}/seq`);
      await call(b, 'POST', `/api/v1/namespaces/${NS}/pods`, pod('watched', { nodeName: 'node-x' }));
      await call(b, 'DELETE', `/api/v1/namespaces/${NS}/pods/watched`);
      await call(b, 'DELETE', `/api/v1/namespaces/${NS}/pods/watched`, { gracePeriodSeconds: 0 });
      await eventually(() => wc.events.length >= 5 && wp.events.length >= 4, `${b.name}: events`);
      wc.stop();
      wp.stop();
      return {
        cms: sequence(wc.events),
        pods: wp.events.map((e) => ({
          type: e.type,
          deletionTimestamp: !!e.object.metadata.deletionTimestamp,
          grace: e.object.metadata.deletionGracePeriodSeconds,
          generation: e.object.metadata.generation,
        })),
      };
    });
    expect(r.embedded).toEqual(r.real);
  });

  it('a watch of Tables', async () => {
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const r = await onBoth(bs, async (b) => {
      const from = await rvOf(b);
      const w = await watch(b, `${cms}?watch=true&labelSelector=tab%3Dyes&resourceVersion=${from}`, table);
      await call(b, 'POST', cms, cm('tab', { tab: 'yes' }));
      await call(b, 'PATCH', `${cms}/tab`, { data: { v: '2', w: '3' } }, merge);
      await eventually(() => w.events.length >= 2, `${b.name}: table events`);
      w.stop();
      return { code: w.code, type: w.headers['content-type'], events: normalise(w.events) };
    });
    expect(r.embedded).toEqual(r.real);
  });
});
