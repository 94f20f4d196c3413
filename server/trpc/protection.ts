// protection.*: the console's view of deletion protection — protectors with their counts
// and state, one protector's admission history and decisions, which protector guards a
// pod, and a "would this deletion be admitted?" preview: a real server-side dry-run
// DELETE (dryRun in the DeleteOptions body: a real API server ignores ?dryRun on a DELETE
// with a body), so the answer comes from the webhook itself and nothing is reserved.
import * as k8s from '@kubernetes/client-node';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { labelSelectorToString } from '../../lib/kube/labelSelector.js';
import { lagOf } from '../../lib/protection/buckets.js';
import { protectorState } from '../../lib/protection/state.js';
import { cellsOf, summarize } from '../../lib/protection/status.js';
import { protectorKey, SOURCE_LABELS } from '../../lib/protection/types.js';
import type { ProtectorEntry } from '../protection/protectors.js';
import type { ProtectionService } from '../protection/service.js';
import { makeClientAs } from '../auth/kubeAs.js';
import { scopeOf } from '../realtime/scope.js';
import {
  allow,
  clusterInput as cluster,
  clusterOf,
  type Context,
  listableNamespaces,
  objectName,
  procedure,
  router,
  type SignedInContext,
} from './trpc.js';

const PROTECTORS = { group: 'podseidon.kubewharf.io', resource: 'podprotectors' };

/** The protector keys ("ns/name") of these the person may see on the core cluster. */
async function visibleKeys(ctx: SignedInContext, svc: ProtectionService, keys: string[]) {
  const namespaces = keys.map((k) => k.slice(0, k.indexOf('/')));
  const ok = await listableNamespaces(ctx, svc.core.id, PROTECTORS, namespaces);
  return (key: string) => !ok || ok.has(key.slice(0, key.indexOf('/')));
}

function serviceOf(ctx: Context): ProtectionService {
  if (!ctx.protection)
    throw new TRPCError({
      code: 'PRECONDITION_FAILED',
      message: 'deletion protection is not enabled on this console',
    });
  return ctx.protection;
}

export function protectorRow(svc: ProtectionService, e: ProtectorEntry, now = Date.now()) {
  const p = e.protector;
  const key = protectorKey(p);
  const cells = cellsOf(p);
  const s = summarize(cells, now);
  const labels = p.metadata.labels ?? {};
  return {
    key,
    namespace: p.metadata.namespace,
    name: p.metadata.name,
    minAvailable: p.spec.minAvailable,
    minReadySeconds: p.spec.minReadySeconds,
    selector: labelSelectorToString(p.spec.selector as never),
    aggregated: s.aggregatedAvailableReplicas,
    estimated: s.estimatedAvailableReplicas,
    total: s.totalReplicas,
    lag: s.aggregatedAvailableReplicas - s.estimatedAvailableReplicas,
    maxLatencyMillis: s.maxLatencyMillis,
    dangling: e.dangling,
    state: protectorState(p.spec.minAvailable, s, {
      dangling: e.dangling,
      recentDenials: svc.decisions.recentDenials(key, now),
    }),
    source: labels[SOURCE_LABELS.kind]
      ? { kind: labels[SOURCE_LABELS.kind], name: labels[SOURCE_LABELS.name] }
      : undefined,
    cells: cells.map((c) => ({
      id: c.id,
      ...c.counts,
      lastEventTime: c.lastEventTime,
      buckets: c.buckets.map((b) => ({
        start: b.start,
        end: b.end,
        count: b.count,
        podName: b.podName,
        podUid: b.podUid,
      })),
      lag: lagOf(c.buckets),
    })),
  };
}

export type ProtectorRow = ReturnType<typeof protectorRow>;

export const protectionRouter = router({
  /** every protector (dangling ones included), the cells and the webhook */
  list: procedure.query(async ({ ctx }) => {
    if (!ctx.protection) return { enabled: false as const };
    const svc = ctx.protection;
    const now = Date.now();
    const all = svc.store.all();
    const visible = await visibleKeys(
      ctx,
      svc,
      all.map((e) => protectorKey(e.protector)),
    );
    return {
      enabled: true as const,
      core: { cluster: svc.core.id, context: svc.core.context },
      synced: svc.store.synced,
      webhook: svc.webhook.url,
      // is the pod-deletion webhook enforced on each cell (the leader's self-probe), and why not
      enforcement: (await svc.enforcement()).map((e) => ({
        cell: e.cell,
        state: e.state,
        policy: e.policy,
        message: e.message,
      })),
      cells: svc.cells.map((c) => ({
        ...c,
        snapshotTime: svc.aggregators.find((a) => a.cellId === c.id)?.lastSnapshotTime || undefined,
      })),
      protectors: all.filter((e) => visible(protectorKey(e.protector))).map((e) => protectorRow(svc, e, now)),
    };
  }),

  get: procedure
    .input(z.object({ namespace: objectName, name: objectName }))
    .query(async ({ ctx, input }) => {
      const svc = serviceOf(ctx);
      await allow(ctx, svc.core.id, {
        ...PROTECTORS,
        verb: 'get',
        namespace: input.namespace,
        name: input.name,
      });
      const key = `${input.namespace}/${input.name}`;
      const e = svc.store.get(key);
      if (!e) throw new TRPCError({ code: 'NOT_FOUND', message: `PodProtector ${key} not found` });
      return {
        row: protectorRow(svc, e),
        history: svc.decisions.history(key),
        decisions: svc.decisions.recent(key, 200),
      };
    }),

  /** recent decisions across all protectors */
  decisions: procedure.query(async ({ ctx }) => {
    const svc = serviceOf(ctx);
    const recent = svc.decisions.recent(undefined, 200);
    const visible = await visibleKeys(
      ctx,
      svc,
      recent.map((d) => d.protector),
    );
    return recent.filter((d) => visible(d.protector));
  }),

  /** pod "ns/name" -> the protectors that select it, for one cluster (its cell) */
  podIndex: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    if (!ctx.protection) return {} as Record<string, string[]>;
    const svc = ctx.protection;
    const conn = clusterOf(ctx, input.cluster);
    const scope = await scopeOf(ctx.access, ctx.identity, conn.id, 'pods', () =>
      conn.cache.podList().map((p) => p.namespace),
    );
    if (scope.kind === 'denied') throw new TRPCError({ code: 'FORBIDDEN', message: scope.message });
    const cell = svc.cells.find((c) => c.cluster === conn.id);
    const agg = cell && svc.aggregators.find((a) => a.cellId === cell.id);
    const out: Record<string, string[]> = {};
    // the aggregator's pod informer keeps labels (the console's pod views do not)
    for (const pod of agg?.pods.values() ?? []) {
      if (scope.kind === 'namespaces' && !scope.namespaces.has(pod.namespace)) continue;
      const keys = svc.store.matching(pod.namespace, pod.labels).map((e) => protectorKey(e.protector));
      if (keys.length) out[`${pod.namespace}/${pod.name}`] = keys;
    }
    return out;
  }),

  /** would deleting this pod be admitted now? a server-side dry run through the API server */
  preview: procedure
    .input(z.object({ cluster, namespace: objectName, pod: objectName }))
    .mutation(async ({ ctx, input }) => {
      const conn = clusterOf(ctx, input.cluster);
      // as the person: the dry run is judged by their RBAC as well as by the webhook
      const core = makeClientAs(conn.spec.kc, ctx.identity.credential, k8s.CoreV1Api);
      try {
        await core.deleteNamespacedPod({
          namespace: input.namespace,
          name: input.pod,
          body: { dryRun: ['All'] },
        });
        return {
          admitted: true as const,
          message: 'The API server would admit this deletion (dry run: nothing was deleted or reserved).',
        };
      } catch (e) {
        if (!(e instanceof k8s.ApiException)) throw e;
        const body = typeof e.body === 'string' ? safeJson(e.body) : e.body;
        return {
          admitted: false as const,
          code: e.code,
          message: (body as { message?: string })?.message ?? String(e.message),
        };
      }
    }),
});

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { message: s };
  }
}
