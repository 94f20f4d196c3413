// In-process costs behind the bench figures, without HTTP or TLS: what one pod write
// costs in ApiCore and in its parts, what a field selector costs per pod, and what
// kubelet-style watches cost per write. `npx tsx bench/experiments/costs.ts`
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { matchesFields, parseFieldSelector } from '../../sim/rules/kube/fieldSelector.js';
import { ApiCore } from '../../sim/apiserver/core/api.js';
import { fieldsOf } from '../../sim/apiserver/core/fields.js';
import { clone, sameValue } from '../../sim/apiserver/core/objects.js';
import { type WatchTiming, serveWatch } from '../../sim/apiserver/http/watch.js';
import { applyPatch } from '../../sim/apiserver/patch/index.js';
import type { KubeObject, ResourceInfo } from '../../sim/apiserver/resources/types.js';
import { annotationPatch, podBody, podStatusPatch } from '../fixtures.js';

const opts = { user: { username: 'bench', groups: ['system:masters'] }, dryRun: false };
const NS = 'bench';
const PODS = 2000;
let seq = 0;

function micros(label: string, n: number, f: () => unknown) {
  for (let i = 0; i < Math.min(n, 1000); i++) f();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  console.log(`${label.padEnd(58)} ${(((performance.now() - t0) * 1000) / n).toFixed(1).padStart(9)} µs`);
}

async function asyncMicros(label: string, n: number, f: (i: number) => Promise<unknown>) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await f(i);
  console.log(`${label.padEnd(58)} ${(((performance.now() - t0) * 1000) / n).toFixed(1).padStart(9)} µs`);
}

async function setup() {
  const core = new ApiCore({ watchWindow: 20_000, defaultTolerationSeconds: 300, serviceHosts: {} });
  const pods = core.registry.lookup('', 'v1', 'pods')!;
  await core.create(
    core.registry.lookup('', 'v1', 'namespaces')!,
    undefined,
    { metadata: { name: NS } },
    opts,
  );
  const place = { namespace: NS, nodes: 5000 };
  await asyncMicros('core.create(pod)', PODS, (i) =>
    core.create(pods, NS, JSON.parse(podBody(i, place)), opts),
  );
  await asyncMicros('core.patch(pod/status, merge)', PODS, (i) =>
    core.patch(pods, NS, `pod-${i}`, 'merge', JSON.parse(podStatusPatch(i, place)), opts, 'status'),
  );
  return { core, pods };
}

const mergeOnce = (core: ApiCore, pods: ResourceInfo, i: number) =>
  core.patch(pods, NS, `pod-${i % PODS}`, 'merge', JSON.parse(annotationPatch(seq++)), opts);

/** The pieces of one merge-PATCH, as ApiCore.writeLoop runs them. */
function writeParts(core: ApiCore, pods: ResourceInfo) {
  const cur = core.store.get('/pods', NS, 'pod-1')!.obj;
  const internals = core as unknown as {
    prepareUpdate(r: ResourceInfo, old: KubeObject, incoming: KubeObject, sub: string): KubeObject;
    validate(r: ResourceInfo, obj: KubeObject, old?: KubeObject): void;
  };
  const patch = JSON.parse(annotationPatch(-1));
  const incoming = applyPatch(clone(cur), patch, 'merge', { group: '', kind: 'Pod' }) as KubeObject;
  const next = internals.prepareUpdate(pods, cur, incoming, '');
  const plain = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map(plain);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = plain((v as Record<string, unknown>)[k]);
    return out;
  };
  console.log(`stored pod: ${JSON.stringify(cur).length} bytes of JSON`);
  micros('structuredClone(pod)  [objects.ts clone, patch/json.ts clone]', 20_000, () => clone(cur));
  micros('plain recursive JSON clone(pod)  [for comparison]', 20_000, () => plain(cur));
  micros('applyPatch(merge)', 20_000, () => applyPatch(cur, patch, 'merge', { group: '', kind: 'Pod' }));
  micros('prepareUpdate', 20_000, () => internals.prepareUpdate(pods, cur, incoming, ''));
  micros('validate -> podSpecUpdate', 20_000, () => internals.validate(pods, next, cur));
  micros('isDeepStrictEqual(pod, pod)  [sameIgnoringRv]', 20_000, () => sameValue(next, cur));
  micros('JSON.stringify(pod)  [store.put and again in sendJson]', 20_000, () => JSON.stringify(next));
}

function fieldSelectors(core: ApiCore, pods: ResourceInfo) {
  const objs = [...core.store.collection('/pods').items.values()].map((s) => s.obj);
  const sel = parseFieldSelector('spec.nodeName=node-7');
  let i = 0;
  micros('fieldsOf + matchesFields, per pod', 50_000, () =>
    matchesFields(sel, fieldsOf(pods, objs[i++ % objs.length])),
  );
  micros('direct getter o.spec.nodeName, per pod  [for comparison]', 50_000, () => {
    const o = objs[i++ % objs.length] as { spec?: { nodeName?: string } };
    return (o.spec?.nodeName ?? '') === 'node-7';
  });
  const keys = Array.from({ length: 151_000 }, (_, k) => `ns-${String(k % 50).padStart(3, '0')}/pod-${k}`);
  const t0 = performance.now();
  keys.sort();
  console.log(
    `${'Collection.keys() re-sort of 151 000 keys'.padEnd(58)} ${(performance.now() - t0).toFixed(0).padStart(9)} ms`,
  );
}

/** Watches that write nowhere: the cost is the server's matching, not the sockets. */
function openKubeletWatches(core: ApiCore, pods: ResourceInfo, n: number) {
  const sink = {
    writeHead() {},
    flushHeaders() {},
    write: () => true,
    end() {},
    on() {},
    writableLength: 0,
  } as unknown as ServerResponse;
  const timing: WatchTiming = {
    bookmarkIntervalMs: 1e9,
    maxWatchSeconds: 1e6,
    maxBufferedBytes: 1e12,
    flushDelayMs: 0,
  };
  const rv = String(core.store.currentRv());
  const closers: (() => void)[] = [];
  for (let k = 0; k < n; k++) {
    const sel = core.parseSelection(pods, { fieldSelector: `spec.nodeName=node-${k}` });
    const close = serveWatch(
      core,
      pods,
      undefined,
      sel,
      { resourceVersion: rv, allowWatchBookmarks: false },
      timing,
      sink,
    );
    if (close) closers.push(close);
  }
  return () => {
    for (const c of closers) c();
  };
}

async function main() {
  const { core, pods } = await setup();
  await asyncMicros('core.patch(pod, merge), warm-up', 5000, (i) => mergeOnce(core, pods, i));
  await asyncMicros('core.patch(pod, merge)', 5000, (i) => mergeOnce(core, pods, i));
  writeParts(core, pods);
  fieldSelectors(core, pods);
  for (const n of [500, 5000]) {
    const close = openKubeletWatches(core, pods, n);
    await asyncMicros(`core.patch(pod, merge) with ${n} spec.nodeName watches`, 200, (i) =>
      mergeOnce(core, pods, i),
    );
    close();
  }
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
