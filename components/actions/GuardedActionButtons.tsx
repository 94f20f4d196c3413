'use client';
// Buttons that open the guarded-action dialog, one per action, for the pod, node, volume and
// fencing views. Each names its target; the dialog does the rest. The dialog opens in the
// shell's GuardedActionHost (it outlives the button), or beside the button when there is none.
import { useState } from 'react';
import { useMay } from '../auth/access';
import type { ActionTarget, Performed } from './api';
import { GuardedActionDialog } from './GuardedActionDialog';
import { openGuardedAction } from './host';

interface ButtonProps {
  cluster: string;
  /** e.g. hide or disable when the cluster is read-only */
  disabled?: boolean;
  className?: string;
  /** the button's accessible name when its text alone is ambiguous (a "Cancel…" on every tile) */
  ariaLabel?: string;
  onDone?: (r: Performed) => void;
}

function GuardedActionButton({
  target,
  label,
  title,
  danger = true,
  disabled,
  className,
  ariaLabel,
  onDone,
}: Omit<ButtonProps, 'cluster'> & { target: ActionTarget; label: string; title: string; danger?: boolean }) {
  const [open, setOpen] = useState(false);
  const { cluster, ...what } = target;
  // an action the person may not take shows disabled, saying why (the cluster's RBAC)
  const may = useMay(cluster, what);
  const denied = may.allowed === false;
  return (
    <>
      <button
        type="button"
        aria-label={ariaLabel}
        title={denied ? `${may.reason}\n${may.message ?? ''}` : title}
        aria-description={denied ? may.reason : undefined}
        data-forbidden={denied ? 'true' : undefined}
        disabled={disabled || denied}
        onClick={() => openGuardedAction(target, onDone) || setOpen(true)}
        data-testid={`guarded-open-${target.action}`}
        className={
          className ??
          `rounded border px-2 py-0.5 text-xs disabled:opacity-50 ${
            danger ? 'border-crit/60 text-crit hover:bg-crit/10' : 'border-line bg-panel-2 hover:border-info'
          }`
        }
      >
        {label}
      </button>
      {denied && (
        <span className="ml-1 text-xs text-dim" data-testid="forbidden-reason">
          {may.reason}
        </span>
      )}
      {open && <GuardedActionDialog target={target} onClose={() => setOpen(false)} onDone={onDone} />}
    </>
  );
}

export function ForceDeleteButton(p: ButtonProps & { namespace: string; name: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'forceDeletePod', cluster: p.cluster, namespace: p.namespace, name: p.name }}
      label="Force delete…"
      title={`Force delete ${p.namespace}/${p.name} (grace period 0): see what can go wrong first`}
    />
  );
}

export function DetachButton(p: ButtonProps & { attachment: string; volume?: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'detachVolume', cluster: p.cluster, attachment: p.attachment }}
      label="Detach…"
      title={`Detach ${p.volume ?? 'the volume'} (delete VolumeAttachment ${p.attachment})`}
    />
  );
}

export function RemoveTaintButton(p: ButtonProps & { node: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'removeOutOfServiceTaint', cluster: p.cluster, node: p.node }}
      label="Remove out-of-service taint…"
      title={`Remove node.kubernetes.io/out-of-service from ${p.node}`}
    />
  );
}

export function ApproveFenceButton(p: ButtonProps & { fence: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'approveFence', cluster: p.cluster, fence: p.fence }}
      label="Approve fence…"
      title={`Approve NodeFence ${p.fence}: the fence agent then powers the node off or cuts it from its storage`}
    />
  );
}

/** Fence a node now: the budget holds its fence, or its fence failed or was cancelled. */
export function FenceNodeButton(p: ButtonProps & { node: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'fenceNode', cluster: p.cluster, node: p.node }}
      label="Fence now…"
      title={`Fence ${p.node} now: its policy's agent powers it off or cuts it from its storage, with no warning window`}
    />
  );
}

/** Cordon a node (no new pod is scheduled there), or uncordon it: kubectl cordon/uncordon. */
export function CordonButton(p: ButtonProps & { node: string; cordoned: boolean }) {
  const action = p.cordoned ? 'uncordonNode' : 'cordonNode';
  return (
    <GuardedActionButton
      {...p}
      danger={false}
      target={{ action, cluster: p.cluster, node: p.node }}
      label={p.cordoned ? 'Uncordon…' : 'Cordon…'}
      title={
        p.cordoned
          ? `Uncordon ${p.node}: the scheduler may place pods there again`
          : `Cordon ${p.node}: the scheduler places no new pod there; what runs keeps running`
      }
    />
  );
}

/** Drain a node: cordon it, then evict its pods through the Eviction API (budgets decide). */
export function DrainButton(p: ButtonProps & { node: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'drainNode', cluster: p.cluster, node: p.node }}
      label="Drain…"
      title={`Drain ${p.node}: cordon it and evict its pods as kubectl drain does; PodDisruptionBudgets and PodProtectors may refuse some`}
    />
  );
}

/** Evict one pod through the Eviction API (budgets decide): the Placement's rebalance. */
export function EvictButton(p: ButtonProps & { namespace: string; name: string }) {
  return (
    <GuardedActionButton
      {...p}
      target={{ action: 'evictPod', cluster: p.cluster, namespace: p.namespace, name: p.name }}
      label={`Evict ${p.name}…`}
      title={`Evict ${p.namespace}/${p.name} through the Eviction API: PodDisruptionBudgets and PodProtectors decide; its controller creates a replacement`}
    />
  );
}

/** Pause a FencePolicy (no new fence; detected ones held before their agent), or resume it. */
export function PausePolicyButton(p: ButtonProps & { policy: string; paused: boolean; label?: string }) {
  const action = p.paused ? 'resumeFencePolicy' : 'pauseFencePolicy';
  return (
    <GuardedActionButton
      {...p}
      danger={false}
      target={{ action, cluster: p.cluster, policy: p.policy }}
      label={p.label ?? (p.paused ? `Resume policy ${p.policy}…` : `Pause policy ${p.policy}…`)}
      title={
        p.paused
          ? `Resume FencePolicy ${p.policy}: held fences whose warning window is over run at once`
          : `Pause FencePolicy ${p.policy}: no new fence, and fences in their warning window are held`
      }
    />
  );
}

export function CancelFenceButton(p: ButtonProps & { fence: string; label?: string }) {
  return (
    <GuardedActionButton
      {...p}
      danger={false}
      target={{ action: 'cancelFence', cluster: p.cluster, fence: p.fence }}
      label={p.label ?? 'Cancel fence…'}
      title={`Cancel NodeFence ${p.fence} (only before its agent has run)`}
    />
  );
}

/** The incident record's actions (issue 25): each a guarded action on the Incident, as the person. */
export function IncidentActionButton(
  p: ButtonProps & {
    incident: string;
    action: 'takeIncidentCommand' | 'postIncidentUpdate' | 'resolveIncident';
    /** other words for the button ("Add note…" on the timeline) */
    words?: [label: string, title: string];
  },
) {
  const words =
    p.words ??
    {
      takeIncidentCommand: ['Take command…', `Become the commander of incident ${p.incident}`],
      postIncidentUpdate: ['Post update…', `Add a status update to incident ${p.incident}'s record`],
      resolveIncident: ['Resolve…', `Close incident ${p.incident}, saying why`],
    }[p.action];
  return (
    <GuardedActionButton
      {...p}
      danger={false}
      target={{ action: p.action, cluster: p.cluster, incident: p.incident }}
      label={words[0]}
      title={words[1]}
    />
  );
}

/** Declare an incident by hand (none is open), at a severity: the person commands it. */
export function DeclareIncidentButton(p: ButtonProps & { severity: 'SEV1' | 'SEV2' | 'SEV3' }) {
  return (
    <GuardedActionButton
      {...p}
      danger={false}
      target={{ action: 'declareIncident', cluster: p.cluster, severity: p.severity }}
      label={`${p.severity}…`}
      title={`Declare a ${p.severity} incident, commanded by you`}
      ariaLabel={`Declare a ${p.severity} incident`}
    />
  );
}

export function SetSeverityButton(p: ButtonProps & { incident: string; severity: 'SEV1' | 'SEV2' | 'SEV3' }) {
  return (
    <GuardedActionButton
      {...p}
      danger={false}
      target={{
        action: 'setIncidentSeverity',
        cluster: p.cluster,
        incident: p.incident,
        severity: p.severity,
      }}
      label={`${p.severity}…`}
      title={`Set incident ${p.incident} to ${p.severity}`}
      ariaLabel={`Set severity ${p.severity}`}
    />
  );
}
