// The words around the MTTR figures: how the run was set up, and what the figures say.
import { percentile } from '../http.js';
import { automaticPolicy, PROFILES } from './profiles.js';
import { type CaseResult, segments, summarize } from './stats.js';

export interface Cpu {
  label: string;
  wallMs: number;
  /** CPU of everything else on the machine, % of one core */
  othersPct: number;
  ownPct: number;
}

export function setup(reps: {
  scaled: number;
  plainScaled: number;
  real: number;
  plainReal: number;
}): string[] {
  const r = PROFILES.real;
  const policy = automaticPolicy(r);
  return [
    '`startEmbeddedCluster()` in the bench process, one fresh cluster per repetition (4 nodes for Palisade, 5 for the plain cases, 4 CPU each), a StatefulSet `shop/db` of 1 replica with a ReadWriteOnce volume (san-rwo, WaitForFirstConsumer). t = 0 is `infra.partition(node)` on the node running the pod: the node loses the API server while its processes keep running and writing. The partition lands at a random point of one Lease renewal interval.',
    "Phases: the scenario's nodes boot together with the simulated controllers, so their Lease renewals would tick in lock-step with the node monitor's and the pod GC's periods and every wait between them would come out the same in every repetition (a first run showed the release wait at 9.8 s three times out of three). So the workload's node is booted alone at a random point of the longest controller period (pod GC: 20 s, scaled 1 s) after the cluster, the workload is created on it while the other nodes are cordoned, and they are uncordoned before the partition: the phases are then as independent as a real node's and kube-controller-manager's.",
    `Palisade: the fencing controller as server/fencing/service.ts runs it (the console's ClusterConnection, default verify window 15 s, polling 500 ms) and one FencePolicy: Ready=Unknown for ${r.unhealthyFor} at real defaults (${PROFILES.scaled.unhealthyFor} scaled) plus a stale Lease (requireStaleLease), approval ${policy.approval}, the built-in power agent (BMC off through the infrastructure API, then a status query), release ${policy.releaseStrategy}.`,
    "MTTR: from the partition to the first moment a pod of the workload with a new uid is Ready on another node and its claim's VolumeAttachment is attached there, judged on every pod, node and VolumeAttachment event the cluster's informers deliver. Phase times: Ready=Unknown, eviction, pod object gone and detach as the same informers saw them; detected, fenced, Releasing (the taint added; with ResourceDeletion, the deletes done) and Released from the NodeFence status.",
    'Plain cases: no FencePolicy, and nobody acts. One cluster holds the StatefulSet and two one-replica Deployments, each with its own RWO claim (created through the API: the scenario schema has no Deployment volume), all on one node (the others cordoned while they start), which is partitioned. In "a person force-deletes the stuck pod" the bench deletes the old pod with grace 0 and a uid precondition as soon as it is Terminating (what `kubectl delete pod --force` does). Each plain cluster is watched for a fixed window.',
    `Profiles: real defaults = node-monitor grace 40 s, monitor period 5 s, Lease 40 s renewed every 10 s, node status every 10 s, default tolerations 300 s, force detach after 6 min, pod GC every 20 s, attach 500 ms, container start 1 s, Ready 2 s later; scaled 1/20 = every one of those divided by 20 (grace 2 s, …, force detach 18 s, pod GC 1 s).`,
    "Variants (real defaults only, comparisons without MTTR targets): the same policy acting on Ready=Unknown for 0s (as soon as the node monitor marks the node, the Lease being stale too); and the same policy releasing by ResourceDeletion, where Palisade force-deletes the fenced node's pods (grace 0, uid + resourceVersion preconditions) and deletes its VolumeAttachments instead of tainting the node.",
    `Repetitions: Palisade ${reps.scaled} scaled, one after another; ${reps.real} at real defaults and ${reps.real} of each variant, all side by side (each its own cluster, started 3 s apart: a repetition at real defaults is a minute of waiting on timers: the CPU line under Observations shows what they cost); plain ${reps.plainScaled} scaled and ${reps.plainReal} at real defaults (window ${PROFILES.real.plainWindowMs / 1000} s = grace + toleration + force detach + a minute). The plain cluster at real defaults runs beside all the other cases in the same process, started first and partitioned before they begin.`,
  ];
}

const sec = (v?: number) => (v === undefined || !Number.isFinite(v) ? '-' : `${(v / 1000).toFixed(1)} s`);
const ms = (v?: number) => (v === undefined || !Number.isFinite(v) ? '-' : `${Math.round(v)} ms`);

export function observations(cases: CaseResult[], cpu: Cpu[]): string[] {
  const out: string[] = [];
  for (const pal of cases.filter((c) => c.key === 'palisade')) {
    const s = summarize(pal);
    const seg = Object.fromEntries(segments(pal).map((g) => [g.name, g]));
    out.push(
      `${pal.profile.label}: of Palisade's MTTR p50 ${sec(s.p50)}, detection takes ${sec(seg.detect?.p50)} (the node-monitor grace, then the policy's Ready=Unknown ${pal.profile.unhealthyFor}, which counts from a lastTransitionTime of one-second precision), the fence ${ms(seg.fence?.p50)}, the release ${sec(seg.release?.p50)} (max ${sec(seg.release?.max)}: the pod is evicted at once after the taint, but the pod GC sweep that force-deletes pods on out-of-service nodes runs only every ${pal.profile.durations.podGcInterval}), and the replacement's start ${sec(seg.restart?.p50)}.`,
    );
  }
  if (cases.some((c) => c.key === 'palisade' && c.profile.name === 'real'))
    out.push(
      "Why the taint release waits 5, 10, 15 or 20 s and never less: the embedded controller manager starts the node monitor (every 5 s) and the pod GC sweep (every 20 s) together, so their ticks coincide; the node turns Unknown on a monitor tick, Palisade detects it a fixed time later (the policy's duration, or at once with 0s) and taints it a few ms after that, just past a tick, so the next pod GC sweep is 5, 10, 15 or 20 s away (mean 12.5 s, where an unrelated phase would give 10 s). A real kube-controller-manager runs the same two fixed-period loops, with whatever offset its start-up gave them.",
    );
  for (const v of cases.filter((c) => c.key === 'palisadeNow' || c.key === 'palisadeDelete')) {
    const s = summarize(v);
    const seg = Object.fromEntries(segments(v).map((g) => [g.name, g]));
    const what =
      v.key === 'palisadeNow'
        ? `acting as soon as the node is Ready=Unknown with a stale Lease (duration 0s), detection takes ${sec(seg.detect?.p50)}`
        : `releasing by ResourceDeletion (Palisade force-deletes the fenced node's pods and VolumeAttachments itself, with preconditions), the release takes ${ms(seg.release?.p50)} instead of waiting for the pod GC sweep`;
    out.push(
      `${v.profile.label}, variant: ${what}; MTTR p50 ${sec(s.p50)}, max ${sec(s.max)}, ${s.violations} violation(s) over ${s.reps} reps.`,
    );
  }
  for (const v of cases.filter((c) => c.key === 'palisadeByHand')) {
    const s = summarize(v);
    const gap = v.samples.map((x) => x.phases.running - x.phases.requested).filter((d) => Number.isFinite(d));
    out.push(
      `${v.profile.label}, variant: the budget (maxUnhealthy 0) holds the automatic fence (held at ${sec(s.phases.held)}); a person uses Fence now at once, and from the request to the replacement running takes ${sec(percentile(gap, 50))} p50 (max ${sec(gap.length ? Math.max(...gap) : undefined)}): no warning window, the budget not asked again; MTTR p50 ${sec(s.p50)}, ${s.violations} violation(s) over ${s.reps} reps.`,
    );
  }
  const plain = (key: string, profile: string) =>
    cases.find((c) => c.key === key && c.profile.name === profile);
  for (const profile of ['real', 'scaled']) {
    const sts = plain('sts', profile);
    const dep = plain('deployment', profile);
    const man = plain('manual', profile);
    if (sts && !summarize(sts).recovered)
      out.push(
        `${sts.profile.label}: the plain StatefulSet never came back within ${sec(summarize(sts).windowMs)}: its pod is evicted at the toleration (${sec(summarize(sts).phases.evicted)}) but stays Terminating on the unreachable node, and the StatefulSet controller creates db-0 again only after the old object is gone.`,
      );
    if (dep && !summarize(dep).recovered)
      out.push(
        `${dep.profile.label}: the plain Deployment did not recover either: the ReplicaSet's replacement was scheduled at ${sec(summarize(dep).phases.replaced)} (the eviction: ${sec(summarize(dep).phases.evicted)}), but it waits on Multi-Attach (${summarize(dep).phases.multiAttach === undefined ? 'no Multi-Attach event seen' : `FailedAttachVolume event at ${sec(summarize(dep).phases.multiAttach)}`}), because the old pod, Terminating on the unreachable node, still holds the volume. The force detach (maxWaitForUnmountDuration, ${dep.profile.durations.forceDetachTimeout}) only starts counting once that pod object is gone, i.e. after someone force-deletes it.`,
      );
    if (man) {
      const s = summarize(man);
      out.push(
        `${man.profile.label}: with a person force-deleting the stuck pod at the eviction (${sec(s.phases.forceDeleted)}), the Deployment recovered after ${sec(s.p50)} (force detach ${man.profile.durations.forceDetachTimeout} later), with ${s.violations} checker violation(s) in ${s.repsWithViolations} of ${s.reps} reps: the old process still runs on the partitioned node, so two nodes write the volume.`,
      );
    }
  }
  // the machine is shared with other work: say who used the CPU in each phase
  const note = (c: Cpu) =>
    `${c.label} ${c.ownPct.toFixed(0)} % (others ${c.othersPct.toFixed(0)} %) over ${(c.wallMs / 1000).toFixed(0)} s`;
  out.push(`CPU, share of one core, the bench process (other processes): ${cpu.map(note).join('; ')}.`);
  return out;
}
