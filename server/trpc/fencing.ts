// fencing.*: the console's view of fencing — every NodeFence with its progress, attempts, agent
// output, warning window (fenceAt), what its release let go of and what still waits on its node;
// the fences coming (upcoming: nodes a policy will fence, and when); and the FencePolicies (paused
// or not, with the error of any the controller cannot read). Read from the fencing controller's
// informers; approve, cancel, pause and resume are guarded actions (actions.*).
import { z } from 'zod';
import { fenceAtOf } from '../../lib/fencing/machine.js';
import type { NodeFence, Released } from '../../lib/fencing/types.js';
import { agentLabel, progressOf } from '../../lib/fencing/view.js';
import { PAUSE_ANNOTATIONS } from '../actions/fencePolicy.js';
import { upcomingFences, waitingOn } from '../fencing/world.js';
import { allow, clusterInput as cluster, clusterOf, listableNamespaces, procedure, router } from './trpc.js';

export const fencingRouter = router({
  list: procedure.input(z.object({ cluster })).query(async ({ ctx, input }) => {
    const conn = clusterOf(ctx, input.cluster);
    await allow(ctx, conn.id, { verb: 'list', group: 'palisade.dev', resource: 'nodefences' });
    const controller = ctx.fencing?.controllers.get(conn.id);
    if (!controller)
      return {
        enabled: false as const,
        reason:
          conn.spec.mode === 'read-only'
            ? 'this cluster is read-only: Palisade does not fence on it'
            : 'fencing is off on this cluster (is the FencePolicy CRD installed? kubectl apply -f deploy/crds/)',
      };
    const inf = controller.informers;
    const policies = [...inf.policies.values()]
      .map((p) => ({
        name: p.name,
        error: p.error,
        agent: p.value ? agentLabel(p.value.spec) : undefined,
        approval: p.value?.spec.approval,
        warningWindow: p.value?.spec.warningWindow,
        paused: p.value?.spec.paused ?? false,
        /** who paused it, when and why (the Pause action's annotations) */
        pausedBy: p.value?.spec.paused ? pauseOf(p.value.metadata.annotations) : undefined,
        releaseStrategy: p.value?.spec.releaseStrategy,
        selector: p.value?.spec.nodeSelector,
        unhealthy: p.value?.spec.unhealthyConditions.map((c) => `${c.type}=${c.status} for ${c.duration}`),
        budget: p.value
          ? p.value.spec.maxUnhealthy !== undefined
            ? `maxUnhealthy ${p.value.spec.maxUnhealthy}`
            : `minHealthy ${p.value.spec.minHealthy ?? '51%'}`
          : undefined,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    // what waits on each node: its pods only in the namespaces where the person may list pods
    const waiting = new Map(
      [...inf.fences.values()]
        .filter((f) => f.value)
        .map(({ value: f }) => [f!.spec.nodeName, waitingOn(conn, f!.spec.nodeName)]),
    );
    const mayPods = await listableNamespaces(
      ctx,
      conn.id,
      { resource: 'pods' },
      [...waiting.values()].flatMap((w) => w.pods.map((p) => p.namespace)),
    );
    const scoped = (node: string) => {
      const w = waiting.get(node) ?? { pods: [], volumes: [] };
      return mayPods ? { ...w, pods: w.pods.filter((p) => mayPods.has(p.namespace)) } : w;
    };
    const fences = [...inf.fences.values()]
      .filter((f) => f.value)
      .map(({ value: f }) => {
        const policy = inf.policies.get(f!.spec.policy)?.value;
        const manual = policy?.spec.approval === 'Manual';
        return {
          name: f!.metadata.name,
          node: f!.spec.nodeName,
          policy: f!.spec.policy,
          agent: policy ? agentLabel(policy.spec) : undefined,
          agentType: policy?.spec.agent.type,
          manual,
          /** when the agent may run: the end of the warning window */
          fenceAt: policy ? isoOf(fenceAtOf(f!, policy.spec)) : (f!.status.fenceAt ?? undefined),
          /** the fence's policy is paused (a Detected fence is held) */
          paused: policy?.spec.paused ?? false,
          released: releasedBy(f!),
          waiting: scoped(f!.spec.nodeName),
          createdAt: f!.metadata.creationTimestamp,
          spec: f!.spec,
          status: f!.status,
          progress: progressOf(f!, manual),
        };
      })
      .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
    // unhealthy nodes the budget keeps from being fenced: the likeliest sign of a control-plane partition
    const held = controller
      .held()
      .filter((h) => h.reason === 'budget')
      .map(({ node, why }) => ({ node, why }));
    // who acts: every console watches, the leader of the cluster's controller Lease runs the loops
    const leader = ctx.fencing?.managers.get(conn.id)?.elector.state();
    // nodes a policy will fence that have no NodeFence yet: the warning before detection
    const upcoming = upcomingFences(inf, conn);
    return { enabled: true as const, policies, fences, upcoming, held, leader };
  }),
});

const pauseOf = (a: Record<string, string> | undefined) =>
  a?.[PAUSE_ANNOTATIONS.by]
    ? { by: a[PAUSE_ANNOTATIONS.by], at: a[PAUSE_ANNOTATIONS.at], reason: a[PAUSE_ANNOTATIONS.reason] }
    : undefined;

const isoOf = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Everything the fence's release steps let go of, each name once. */
function releasedBy(f: NodeFence): Released {
  const pods = new Set<string>();
  const volumeAttachments = new Set<string>();
  for (const s of f.status.steps) {
    for (const p of s.released?.pods ?? []) pods.add(p);
    for (const v of s.released?.volumeAttachments ?? []) volumeAttachments.add(v);
  }
  return { pods: [...pods], volumeAttachments: [...volumeAttachments] };
}
