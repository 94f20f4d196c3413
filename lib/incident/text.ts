// The incident view's sentences, made from its typed decisions (shared by the page and tests).
// Pure; `now` makes the countdowns.
import type {
  HumanStep,
  NextAction,
  PreconditionCode,
  RiskKind,
  SituationKey,
  StaleReason,
} from './types.js';

/** A count's label, singular for one ("1 node not Ready", not "1 nodes"). */
export function situationLabel(k: SituationKey, n: number): string {
  return n === 1 ? SITUATION_LABEL_ONE[k] : SITUATION_LABEL[k];
}

const SITUATION_LABEL_ONE: Record<SituationKey, string> = {
  nodesNotReady: 'node not Ready',
  nodesSuspect: 'node suspect',
  podsOnFailedNodes: 'pod on them',
  workloadsBelowDesired: 'workload below desired',
  protectorsAtFloor: 'protector at or below floor',
  fencesPending: 'fence pending',
  fencesInProgress: 'fence in progress',
  fencesAwaitingApproval: 'fence awaiting approval',
  fencesHeldByBudget: 'fence held by the budget',
  volumesStuck: 'volume stuck',
  volumesSplitBrainRisk: 'volume at split-brain risk',
};

export const SITUATION_LABEL: Record<SituationKey, string> = {
  nodesNotReady: 'nodes not Ready',
  nodesSuspect: 'nodes suspect',
  podsOnFailedNodes: 'pods on them',
  workloadsBelowDesired: 'workloads below desired',
  protectorsAtFloor: 'protectors at or below floor',
  fencesPending: 'fences pending',
  fencesInProgress: 'fences in progress',
  fencesAwaitingApproval: 'fences awaiting approval',
  fencesHeldByBudget: 'fences held by the budget',
  volumesStuck: 'volumes stuck',
  volumesSplitBrainRisk: 'volumes at split-brain risk',
};

export const RISK_LABEL: Record<RiskKind, string> = {
  'statefulset-identity-stuck': 'StatefulSet identity stuck',
  'singleton-rwo-on-failed-node': 'ReadWriteOnce volume on a failed node',
  'pod-on-failed-node': 'on a failed node',
  'volume-split-brain-risk': 'volume at split-brain risk',
  'volume-stuck': 'volume stuck on a failed node',
  'zero-disruptions-allowed': 'zero disruptions allowed',
};

export const PRECONDITION_LABEL: Record<PreconditionCode, string> = {
  'policy-covers-node': 'a FencePolicy covers the node',
  'budget-allows-fencing': 'the fencing budget allows it',
  'warning-window-over': 'the warning window is over',
  'fence-approved': 'the fence is approved',
  'node-fenced': 'the node is fenced (powered off or cut from its storage)',
  'node-powered-off-confirmed': 'the node is confirmed powered off',
  'replicas-above-floor': 'available replicas above the floor',
  'node-back': 'the node is Ready again',
  'volume-released': 'the volume is detached',
};

/** "8 s", never negative */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The warning window's words (the contract with the Fencing page and the map). */
export function countdownText(fenceAt: number, now: number, paused?: boolean, policy?: string): string {
  if (paused) return `fence paused by policy ${policy ?? ''}`.trim();
  return `fenced automatically in ${secondsUntil(fenceAt, now)} s unless cancelled`;
}

export function nextActionText(a: NextAction, now: number): string {
  switch (a.action) {
    case 'force-delete':
      return `force delete ${a.pod.namespace}/${a.pod.name}: its node is fenced`;
    case 'approve-fence':
      return `approve the fence ${a.fence}`;
    case 'wait-for-fence':
      if (a.paused) return `fencing is paused: resume its policy, or fence ${a.node} by hand`;
      return a.fenceAt !== undefined && a.fenceAt > now
        ? `wait: ${a.node} is ${countdownText(a.fenceAt, now)}`
        : `wait for the fence of ${a.node}`;
    case 'fence-node':
      return {
        'no-policy': `fence ${a.node} first: no FencePolicy covers it (power it off, confirm, then mark it out of service)`,
        budget: `fence ${a.node} by hand once you are sure it is down: the budget holds its fence (a network split?)`,
        failed: `fence ${a.node} by hand: its fence failed`,
        cancelled: `fence ${a.node} by hand: its fence was cancelled`,
      }[a.why];
    case 'detach':
      return `detach ${a.pv} (VolumeAttachment ${a.attachment})`;
    case 'wait-for-replicas':
      return `delete nothing it guards until its replicas recover (${a.protector})`;
  }
}

export function humanStepText(node: string, s: HumanStep, now: number): string {
  switch (s.step) {
    case 'power-on-or-repair':
      return `power on or repair ${node}${s.removeTaint ? ', then remove the out-of-service taint' : ''}`;
    case 'remove-out-of-service-taint':
      return `${node} is back: remove the out-of-service taint`;
    case 'approve-fence':
      return `approve the fence ${s.fence}`;
    case 'wait-for-fence':
      if (s.paused)
        return `the fence of ${node} is held: its policy is paused (resume it, or fence ${node} by hand)`;
      if (s.fenceAt !== undefined && s.fenceAt > now)
        return `wait: fence in ${secondsUntil(s.fenceAt, now)} s`;
      return s.phase ? `wait: fence ${s.phase}` : 'wait: a policy will fence it';
    case 'budget-holds-fence':
      return `the fencing budget holds its fence: confirm ${node} is down, not cut off by a network split`;
    case 'fence-manually':
      return s.why === 'no-policy'
        ? `no FencePolicy covers ${node}: power it off or cut its storage, confirm, then mark it out of service`
        : `its fence ${s.why === 'failed' ? 'failed' : 'was cancelled'}: fence ${node} by hand`;
    case 'wait-for-heartbeat':
      return `watch ${node}: its heartbeats are late`;
  }
}

export function staleText(r: StaleReason): string {
  if (r.code === 'never-synced') return `the ${r.kind} watch has not listed yet`;
  if (r.code === 'watch-down') return `the ${r.kind} watch has been down for ${Math.round(r.forMs / 1000)} s`;
  return `no node heartbeat for ${Math.round(r.forMs / 1000)} s beyond their interval`;
}
