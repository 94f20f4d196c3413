'use client';
import type { FenceRow } from '../fencing/live';
import { NodeFenceSection } from './NodeFenceSection';
import { PhaseBadge } from '../fencing/PhaseBadge';
import {
  CordonButton,
  DrainButton,
  FenceNodeButton,
  RemoveTaintButton,
} from '../actions/GuardedActionButtons';
import { Progress } from '../fencing/Progress';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { NodeView, PodView } from '@/lib/console/protocol';
import { CONDITION_TONE_CLASS, conditionTone, readySinceLabel } from '@/lib/console/ui/conditions';
import { formatAge, formatClock } from '@/lib/console/ui/format';
import { naturalCompare } from '@/lib/console/ui/topology';
import {
  NODE_STATE_LABEL,
  nodeDisplayState,
  OUT_OF_SERVICE_TAINT,
  POD_DOT_CLASS,
} from '@/lib/console/ui/states';
import type { ClusterMode, InfraVerb } from '../console/api-types';
import { EventsTable } from '../console/EventsTable';
import { useGhosts } from '../console/groundTruth';
import { GhostList } from '../sim/GhostList';
import { eventsOf } from '../pod/normalize';
import { useCluster } from '../console/cluster';
import { useNow } from '../console/clock';
import { useMay } from '../auth/access';
import { useTRPC } from '../console/trpc';
import { protectorHref } from '../protection/usePodProtection';
import { type PodProtectorIndex, podKey } from '@/lib/console/ui/protection';
import { HeartbeatAge, ShieldIcon } from './NodeTile';
import { NodeStateMark } from './NodeStateMark';

export function podHref(cluster: string, p: Pick<PodView, 'namespace' | 'name'>): string {
  return `/clusters/${encodeURIComponent(cluster)}/namespaces/${encodeURIComponent(p.namespace)}/pods/${encodeURIComponent(p.name)}`;
}

export function NodePanel({
  cluster,
  name,
  live,
  pods,
  guarded,
  fence,
  onClose,
}: {
  /** the node's NodeFence, if it has one */
  fence?: FenceRow;
  cluster: string;
  name: string;
  live: NodeView | undefined;
  pods: readonly PodView[];
  /** pods some PodProtector guards ("ns/name" -> protector keys) */
  guarded?: PodProtectorIndex;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  // live data is the source; nodes.get only when the live cache has not got the node
  const fallback = useQuery({ ...trpc.nodes.get.queryOptions({ cluster, name }), enabled: !live });
  const node = live ?? fallback.data?.node;
  const nodePods = live ? pods : (fallback.data?.pods ?? pods);
  const { current } = useCluster();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  const now = useNow(1000);

  return (
    <aside
      aria-label={`Node ${name}`}
      className="flex h-full w-full flex-col overflow-y-auto border-l border-line bg-panel text-sm md:w-[400px]"
    >
      <div className="sticky top-0 z-10 flex items-center gap-2 border-b border-line bg-panel px-3 py-2">
        <h2 ref={headingRef} tabIndex={-1} className="font-mono font-semibold outline-none">
          {name}
        </h2>
        {node && <StateChip node={node} />}
        <button
          type="button"
          onClick={onClose}
          aria-label="Close node panel"
          className="ml-auto text-dim hover:text-fg"
        >
          ✕
        </button>
      </div>
      {!node ? (
        <p className="p-3 text-dim">
          {fallback.isError ? `Node not found: ${fallback.error.message}` : 'Loading…'}
        </p>
      ) : (
        <div className="flex flex-col gap-4 p-3">
          <NodeFenceSection node={name} fence={fence} />
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt className="text-dim">Zone / rack</dt>
            <dd className="font-mono">
              {node.zone || '—'} / {node.rack || '—'}
            </dd>
            <dt className="text-dim">Last heartbeat</dt>
            <dd className="font-mono">
              <HeartbeatAge since={node.lastHeartbeat} /> ago{' '}
              <span className="text-dim">({formatClock(node.lastHeartbeat)})</span>
            </dd>
            <dt className="text-dim">{readySinceLabel(node.ready)}</dt>
            <dd className="font-mono">
              {node.readySince
                ? `${formatClock(node.readySince)} (${formatAge((now || Date.now()) - node.readySince)})`
                : '—'}
            </dd>
            <dt className="text-dim">Schedulable</dt>
            <dd>{node.unschedulable ? <span className="text-warn">no (cordoned)</span> : 'yes'}</dd>
            <dt className="text-dim">Capacity</dt>
            <dd className="font-mono">
              {node.capacity.cpu ?? '—'} cpu · {node.capacity.memory ?? '—'} · {node.capacity.pods ?? '—'}{' '}
              pods
            </dd>
          </dl>

          <NodeActions
            cluster={cluster}
            node={node}
            fenced={!!fence}
            readOnly={current?.mode === 'read-only'}
          />

          <section aria-label="Conditions">
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">Conditions</h3>
            <table className="w-full text-xs">
              <tbody>
                {node.conditions.map((c) => {
                  const tone = CONDITION_TONE_CLASS[conditionTone(c.type, c.status)];
                  return (
                    <tr key={c.type} className="border-t border-line align-top">
                      <td className="py-1 pr-2 font-medium">{c.type}</td>
                      <td className={`py-1 pr-2 font-mono ${tone}`}>{c.status}</td>
                      <td className="py-1 text-dim" title={c.message}>
                        {c.reason ?? ''}
                        {c.lastTransitionTime ? ` · ${formatClock(c.lastTransitionTime)}` : ''}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>

          <section aria-label="Taints">
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">Taints</h3>
            {node.taints.length === 0 ? (
              <p className="text-xs text-dim">none</p>
            ) : (
              <ul className="flex flex-col gap-1 font-mono text-xs">
                {node.taints.map((t) => (
                  <li
                    key={`${t.key}:${t.effect}`}
                    className={`rounded px-1.5 py-0.5 ${t.key === OUT_OF_SERVICE_TAINT ? 'bg-oos/15 text-oos' : 'bg-panel-2'}`}
                  >
                    {t.key}
                    {t.value ? `=${t.value}` : ''}:{t.effect}
                  </li>
                ))}
              </ul>
            )}
            {node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT) && (
              <div className="mt-1.5">
                <RemoveTaintButton cluster={cluster} node={name} disabled={current?.mode === 'read-only'} />
              </div>
            )}
          </section>

          <section aria-label="Pods on this node">
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">
              Pods ({nodePods.length})
            </h3>
            <ul className="flex flex-col text-xs">
              {[...nodePods]
                .sort((a, b) => naturalCompare(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`))
                .map((p) => (
                  <li key={p.uid} className="flex items-center gap-2 border-t border-line py-0.5">
                    <span
                      className={`inline-block h-2 w-2 shrink-0 rounded-sm ${POD_DOT_CLASS[p.state]}`}
                      aria-hidden="true"
                    />
                    <Link href={podHref(cluster, p)} className="truncate font-mono hover:underline">
                      <span className="text-dim">{p.namespace}/</span>
                      {p.name}
                    </Link>
                    <GuardLinks keys={guarded?.get(podKey(p))} />
                    <span className="ml-auto shrink-0 text-dim">{p.state}</span>
                  </li>
                ))}
            </ul>
          </section>

          <NodeEvents cluster={cluster} name={name} version={node.resourceVersion} />

          {current?.embedded && <NodeGhosts cluster={cluster} node={name} now={now || Date.now()} />}

          {current?.embedded && (
            <SimulationControls cluster={cluster} node={name} mode={current.mode ?? 'normal'} />
          )}
        </div>
      )}
    </aside>
  );
}

/**
 * The node's own actions, each through the guarded-action dialog: cordon or uncordon, drain (the
 * Eviction API, so budgets and protectors decide), and Fence now for a node that is down with no
 * fence of its own yet (the fencing section offers it once a fence exists).
 */
function NodeActions({
  cluster,
  node,
  fenced,
  readOnly,
}: {
  cluster: string;
  node: NodeView;
  fenced: boolean;
  readOnly: boolean;
}) {
  return (
    <section aria-label="Node actions" className="flex flex-wrap gap-2" data-testid="node-actions">
      <CordonButton cluster={cluster} node={node.name} cordoned={node.unschedulable} disabled={readOnly} />
      <DrainButton cluster={cluster} node={node.name} disabled={readOnly} />
      {node.ready !== 'Ready' && !fenced && (
        <FenceNodeButton cluster={cluster} node={node.name} disabled={readOnly} />
      )}
    </section>
  );
}

/** The protectors guarding a pod, as links to their pages. */
export function GuardLinks({ keys }: { keys: readonly string[] | undefined }) {
  if (!keys?.length) return null;
  return (
    <span className="flex shrink-0 items-center gap-1 text-info">
      <ShieldIcon />
      {keys.map((k) => (
        <Link
          key={k}
          href={protectorHref(k)}
          title={`Guarded by PodProtector ${k}`}
          className="font-mono hover:underline"
        >
          {k.split('/')[1]}
        </Link>
      ))}
    </span>
  );
}

function StateChip({ node }: { node: NodeView }) {
  const s = nodeDisplayState(node, Date.now());
  return (
    <span className="flex items-center gap-1 text-xs">
      <NodeStateMark state={s} />
      {NODE_STATE_LABEL[s]}
    </span>
  );
}

/** `confirm`: asked once before it runs (issue 25: power-off and Meteor ran on one click) */
const SIM_ACTIONS: { verb: InfraVerb; label: string; hint: string; danger?: boolean; confirm?: string }[] = [
  {
    verb: 'partition',
    label: 'Partition',
    hint: "Cut the node's link to the API server; its processes keep running",
  },
  { verb: 'heal', label: 'Heal', hint: 'Restore the network link' },
  {
    verb: 'power-off',
    label: 'Power off',
    hint: 'Through the BMC: kills its processes and kubelet',
    confirm: 'its processes and its kubelet die at once',
  },
  { verb: 'power-on', label: 'Power on', hint: 'Boot a fresh kubelet' },
  { verb: 'kubelet-crash', label: 'Kubelet crash', hint: 'The kubelet dies; processes keep running' },
  { verb: 'kubelet-restart', label: 'Kubelet restart', hint: 'The kubelet comes back with an empty memory' },
  {
    verb: 'meteor',
    label: 'Meteor',
    hint: 'The node is gone for ever',
    danger: true,
    confirm: 'the node is gone for ever: it never comes back',
  },
];

function NodeGhosts({ cluster, node, now }: { cluster: string; node: string; now: number }) {
  const msg = useGhosts(cluster);
  const ghosts = useMemo(() => msg?.ghosts.filter((g) => g.node === node) ?? [], [msg, node]);
  return (
    <GhostList
      ghosts={ghosts}
      title="Processes out of the API's sight"
      now={now}
      empty={msg?.synced ? 'none: the API sees every process on this node' : 'reading the ground truth…'}
    />
  );
}

/** The node's Events, read again whenever the live node changes (no polling). */
function NodeEvents({ cluster, name, version }: { cluster: string; name: string; version: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const input = { cluster, name };
  const events = useQuery({ ...trpc.nodes.events.queryOptions(input), staleTime: 0 });
  const queryKey = trpc.nodes.events.queryKey(input);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refetch on each new node version
  useEffect(() => {
    void qc.invalidateQueries({ queryKey });
  }, [version]);
  const rows = eventsOf(events.data);
  return (
    <section aria-label="Node events">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-dim">Events ({rows.length})</h3>
      <EventsTable events={rows.slice(-20)} empty={events.isPending ? 'loading…' : 'no events'} />
    </section>
  );
}

const MODE_NOTE: Partial<Record<ClusterMode, string>> = {
  'read-only': 'This cluster is read-only: Palisade will not change it.',
  protected: "This cluster is protected: type the node's name to confirm each action.",
};

function SimulationControls({ cluster, node, mode }: { cluster: string; node: string; mode: ClusterMode }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const act = useMutation(
    trpc.infra.act.mutationOptions({
      onSuccess: () =>
        void qc.invalidateQueries({ queryKey: trpc.nodes.events.queryKey({ cluster, name: node }) }),
    }),
  );
  const [last, setLast] = useState<string | undefined>(undefined);
  const [pending, setPending] = useState<InfraVerb | undefined>(undefined);
  const [asking, setAsking] = useState<(typeof SIM_ACTIONS)[number] | undefined>(undefined);
  const run = (verb: InfraVerb, confirm?: string) => {
    setLast(verb);
    setPending(undefined);
    setAsking(undefined);
    act.mutate({ cluster, node, verb, ...(confirm === undefined ? {} : { confirm }) });
  };
  const readOnly = mode === 'read-only';
  // the cluster's RBAC: create on simulatedfaults.palisade.dev (palisade-operator and -admin)
  const may = useMay(cluster, { action: 'simulatedFault', node });
  const denied = may.allowed === false;
  return (
    <section
      className="rounded border border-dashed border-info/60 bg-info/5 p-2"
      aria-label="Embedded cluster (simulation)"
    >
      <h3 className="text-xs font-semibold uppercase tracking-wide text-info">
        Embedded cluster (simulation)
      </h3>
      <p className="mb-2 text-xs text-dim">
        Injects infrastructure faults into Palisade's simulated cluster. Not available on real clusters.
      </p>
      {MODE_NOTE[mode] && (
        <p className={`mb-2 text-xs ${readOnly ? 'text-warn' : 'text-crit'}`}>{MODE_NOTE[mode]}</p>
      )}
      {denied && (
        <p className="mb-2 text-xs text-dim" data-testid="forbidden-reason" title={may.message}>
          Not allowed: {may.reason}
        </p>
      )}
      <div className="flex flex-wrap gap-1.5">
        {SIM_ACTIONS.map((a) => (
          <button
            key={a.verb}
            type="button"
            title={readOnly ? 'read-only cluster' : denied ? may.reason : a.hint}
            aria-label={`Simulate ${a.label.toLowerCase()} on ${node}`}
            disabled={act.isPending || readOnly || denied}
            onClick={() =>
              mode === 'protected' ? setPending(a.verb) : a.confirm ? setAsking(a) : run(a.verb)
            }
            className={`rounded border px-2 py-0.5 text-xs disabled:opacity-50 ${
              a.danger
                ? 'border-crit/60 text-crit hover:bg-crit/10'
                : 'border-line bg-panel-2 hover:border-info'
            }`}
          >
            {a.label}
          </button>
        ))}
      </div>
      {pending && (
        <ConfirmByName
          node={node}
          verb={pending}
          onCancel={() => setPending(undefined)}
          onConfirm={(typed) => run(pending, typed)}
        />
      )}
      {asking?.confirm && (
        // biome-ignore lint/a11y/useSemanticElements: a question with two buttons, not a form
        <div
          role="group"
          aria-label={`Confirm ${asking.label.toLowerCase()} on ${node}`}
          className="mt-2 flex flex-wrap items-center gap-1.5 rounded border border-crit/50 p-2 text-xs"
        >
          <span>
            {asking.label} {node}? {asking.confirm}.
          </span>
          <button
            type="button"
            onClick={() => run(asking.verb)}
            className="rounded border border-crit px-2 py-0.5 font-semibold text-crit"
          >
            {asking.label}
          </button>
          <button
            type="button"
            onClick={() => setAsking(undefined)}
            className="rounded border border-line px-2 py-0.5"
          >
            Keep it
          </button>
        </div>
      )}
      <p className="mt-1.5 min-h-4 text-xs" role="status">
        {act.isPending && `${last}…`}
        {act.isError && <span className="text-crit">{`${last} failed: ${act.error.message}`}</span>}
        {act.isSuccess && <span className="text-ok">{`${last}: done`}</span>}
      </p>
    </section>
  );
}

/** Protected mode: the action runs only once the node's name is typed exactly. */
function ConfirmByName({
  node,
  verb,
  onCancel,
  onConfirm,
}: {
  node: string;
  verb: InfraVerb;
  onCancel: () => void;
  onConfirm: (typed: string) => void;
}) {
  const [typed, setTyped] = useState('');
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <form
      className="mt-2 flex flex-col gap-1 rounded border border-crit/50 p-2 text-xs"
      aria-label={`Confirm ${verb} on ${node}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (typed === node) onConfirm(typed);
      }}
    >
      <label htmlFor="confirm-node">
        Protected cluster: type <span className="font-mono font-semibold">{node}</span> to {verb} it.
      </label>
      <div className="flex gap-1.5">
        <input
          id="confirm-node"
          ref={ref}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          className="min-w-0 flex-1 rounded border border-line bg-bg px-1.5 py-0.5 font-mono"
        />
        <button
          type="submit"
          disabled={typed !== node}
          className="rounded border border-crit/60 px-2 py-0.5 text-crit disabled:opacity-50"
        >
          {verb}
        </button>
        <button type="button" onClick={onCancel} className="rounded border border-line px-2 py-0.5">
          Cancel
        </button>
      </div>
    </form>
  );
}
