// What the guards judge and what they answer. The facts are small plain shapes the server fills
// from objects it has just read live from the API (never from the cache), so the rules stay pure
// and table-tested. A verdict is safe (with notes), or unsafe with the reasons a person must
// read, and override by typing the object's name and a reason — unless the action makes no
// sense at all in this state (overridable: false), which no confirmation can change.
import type { Phase } from '../fencing/types.js';
import type { WaitOutlook } from './fenceOutlook.js';

/** kubectl's own warning for `kubectl delete --force --grace-period=0`, verbatim. */
export const KUBECTL_FORCE_DELETE_WARNING =
  'Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.';

export type Verdict =
  | { safe: true; notes: string[]; warnings: string[] }
  | {
      safe: false;
      /** what can go wrong, one sentence each */
      reasons: string[];
      notes: string[];
      warnings: string[];
      /** false: refused whatever is typed (e.g. cancelling a fence whose agent has run) */
      overridable: boolean;
      /** the safe path instead of overriding: a fence is coming for the node, wait for it */
      wait?: WaitOutlook;
      /**
       * how a person overrides: by typing the target's name and a reason (the default), or, for a
       * known low-stakes risk, by acknowledging it (one checkbox)
       */
      confirmation?: Confirmation;
    };

export type Confirmation = 'type-name' | 'acknowledge';

export type ReadyStatus = 'True' | 'False' | 'Unknown';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface NodeFacts {
  name: string;
  uid?: string;
  /** the Ready condition's status; a node without one counts as Unknown */
  ready: ReadyStatus;
  taints: Taint[];
  /** status.nodeInfo.bootID: a new one means the machine booted again */
  bootId?: string;
}

export interface FenceFacts {
  /** NodeFence objects are named after their node */
  name: string;
  nodeName: string;
  phase: Phase;
  /** the Node's uid when the fence detected it: a re-created node is another node */
  nodeUid?: string;
  /** the node's bootID when the fence detected it: the boot whose processes the fence stopped */
  nodeBootId?: string;
  approvedBy?: string;
  cancelRequestedBy?: string;
}

export function safe(notes: string[] = [], warnings: string[] = []): Verdict {
  return { safe: true, notes, warnings };
}

export type UnsafeVerdict = Extract<Verdict, { safe: false }>;

export function unsafe(reasons: string[], notes: string[] = [], warnings: string[] = []): UnsafeVerdict {
  return { safe: false, reasons, notes, warnings, overridable: true };
}

/** What a force detach of an unreachable node's volume does on this cluster, for the reasons. */
export interface ForceDetachFacts {
  enabled: boolean;
  maxWaitMs: number;
  /** 'cluster': the cluster's own setting; 'assumed': kube-controller-manager's default */
  source: 'cluster' | 'assumed';
}

/** An action that makes no sense now: no confirmation overrides it. */
export function refused(reason: string, notes: string[] = []): Verdict {
  return { safe: false, reasons: [reason], notes, warnings: [], overridable: false };
}

export function readyWords(node: NodeFacts): string {
  if (node.ready === 'True') return 'Ready';
  return node.ready === 'False' ? 'NotReady (Ready=False)' : 'unreachable (Ready=Unknown)';
}
