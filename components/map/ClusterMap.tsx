'use client';
import { failedCount } from '@/lib/incident/nodes';
import Link from 'next/link';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { ghostsByNode } from '@/lib/console/ghosts';
import type { NodeView, PodView } from '@/lib/console/protocol';
import { type PodCollection, UNSCHEDULED } from '@/lib/console/ui/live';
import { NODE_DISPLAY_STATES, NODE_STATE_LABEL, POD_DOT_CLASS, POD_STATES } from '@/lib/console/ui/states';
import { type Density, type DensityChoice, effectiveDensity, parseDensity } from '@/lib/console/ui/density';
import { matchesSearch } from '@/lib/console/ui/table';
import { groupByZoneRack, type RackGroup, reuseGroups, type ZoneGroup } from '@/lib/console/ui/topology';
import { CordonGroupButton } from '../actions/CordonGroupButton';
import { useCluster } from '../console/cluster';
import { useConnection, useNodes, usePods, useSelectedHealth } from '../console/live';
import { CLOSE_EVENT } from '../shell/Shell';
import { useGhosts } from '../console/groundTruth';
import { usePodProtection } from '../protection/usePodProtection';
import type { PodProtectorIndex } from '@/lib/console/ui/protection';
import { GhostSummary } from '../sim/GhostSummary';

type GhostCounts = ReturnType<typeof ghostsByNode>;
import { NodePanel, podHref } from './NodePanel';
import { NodeStateMark } from './NodeStateMark';
import { NodeTile } from './NodeTile';
import { type FenceBadge, useFenceBadges, useNodeFences } from '../fencing/live';
import { SummaryBar } from './SummaryBar';
import { useNodeParam } from '../lists/nodeLink';

const NO_PODS: readonly PodView[] = [];

export function ClusterMap() {
  const { cluster, listLoading, current } = useCluster();
  const nodes = useNodes(cluster);
  const pods = usePods(cluster);
  const { syncing, conn, error: liveError } = useConnection();
  // an empty map only means "no nodes" once the nodes informer has synced
  const nodesHealth = useSelectedHealth()?.informers.find((i) => i.kind === 'nodes');
  const nodesSynced = nodesHealth?.synced ?? true;
  const nodesError = nodesHealth?.lastError;
  // the selection belongs to a cluster: switching clusters closes the panel
  const [selection, setSelection] = useState<{ cluster?: string; name: string } | undefined>(undefined);
  const selected = selection && selection.cluster === cluster ? selection.name : undefined;
  const setSelected = useCallback(
    (f: (s: string | undefined) => string | undefined) =>
      setSelection((cur) => {
        const name = f(cur !== undefined && cur.cluster === cluster ? cur.name : undefined);
        return name === undefined ? undefined : { cluster, name };
      }),
    [cluster],
  );
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);

  useEffect(() => {
    const close = () => setSelection(undefined);
    window.addEventListener(CLOSE_EVENT, close);
    return () => window.removeEventListener(CLOSE_EVENT, close);
  }, []);

  // a link to a node on the map (/?node=a2-1: the Nodes list, the incident view) opens its panel
  useNodeParam(cluster, (name) => setSelected(() => name));
  const onSelect = useCallback(
    (name: string) => setSelected((s) => (s === name ? undefined : name)),
    [setSelected],
  );
  const [densityChoice, setDensityChoice] = useDensityChoice();
  const density = effectiveDensity(densityChoice, nodes?.byKey.size ?? 0);
  const protection = usePodProtection(cluster);
  const fences = useNodeFences();
  const fenceBadges = useFenceBadges();
  const ghostMsg = useGhosts(current?.embedded ? cluster : undefined);
  const ghostCounts = useMemo(() => ghostsByNode(ghostMsg?.ghosts ?? []), [ghostMsg]);
  const lastZones = useRef<ZoneGroup<NodeView>[] | undefined>(undefined);
  const zones = useMemo(() => {
    const next = reuseGroups(lastZones.current, groupByZoneRack(nodes?.byKey.values() ?? []));
    lastZones.current = next;
    return next;
  }, [nodes]);
  const matching = useMemo(() => {
    if (!deferredQuery.trim() || !nodes) return undefined;
    const m = new Set<string>();
    for (const n of nodes.byKey.values())
      if (matchesSearch([n.name, n.zone, n.rack], deferredQuery)) m.add(n.name);
    return m;
  }, [nodes, deferredQuery]);

  const unscheduled = pods?.byNode.get(UNSCHEDULED) ?? [];

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <SummaryBar
        nodes={nodes}
        pods={pods}
        protection={protection.enabled ? protection.summary : undefined}
      />
      <div className="flex min-h-0 flex-1">
        <div className="min-w-0 flex-1 overflow-auto p-3">
          <div className="mb-3 flex flex-wrap items-center gap-3">
            <h1 className="font-semibold">Cluster map</h1>
            <input
              data-search
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="Filter nodes (name, zone, rack)…  /"
              aria-label="Filter nodes on the map"
              className="w-72 rounded border border-line bg-panel px-2 py-1 text-sm"
            />
            {matching && (
              <span className="text-xs text-dim">
                {matching.size} of {nodes?.byKey.size ?? 0} nodes match
              </span>
            )}
            <Unscheduled pods={unscheduled} />
            <DensitySwitch choice={densityChoice} effective={density} onChange={setDensityChoice} />
            <GhostSummary />
            <Legend />
          </div>
          {!nodes || !pods ? (
            <MapPlaceholder
              text={
                !cluster
                  ? listLoading
                    ? 'Loading clusters…'
                    : 'No cluster selected.'
                  : conn !== 'connected'
                    ? 'Waiting for the live connection…'
                    : nodesError
                      ? 'Nodes not loaded: the cluster cannot be read (see above). Retrying…'
                      : liveError
                        ? `Nodes not shown: ${liveError}`
                        : syncing
                          ? nodes
                            ? 'Loading pods…'
                            : 'Loading nodes…'
                          : 'Waiting for the first snapshot…'
              }
            />
          ) : zones.length === 0 ? (
            <MapPlaceholder
              text={
                nodesSynced
                  ? 'This cluster has no nodes.'
                  : nodesError
                    ? 'Nodes not loaded: the cluster cannot be read (see above). Retrying…'
                    : 'Loading nodes…'
              }
            />
          ) : (
            <div className="flex flex-col gap-4">
              {zones.map((z) => (
                <section key={z.zone} aria-label={`Zone ${z.zone}`} className="flex flex-col gap-1.5">
                  <h2 className="flex items-baseline gap-2 text-xs font-semibold uppercase tracking-wide text-dim">
                    {z.zone} <span className="font-normal normal-case">{z.count} nodes</span>
                    <DownCount
                      nodes={z.racks.flatMap((r) => r.nodes)}
                      of={z.count}
                      testId={`zone-down-${z.zone}`}
                    />
                    <CordonGroupButton scope={`zone ${z.zone}`} nodes={z.racks.flatMap((r) => r.nodes)} />
                  </h2>
                  <div className="flex flex-wrap gap-2">
                    {z.racks.map((r) => (
                      <Rack
                        key={r.rack}
                        rack={r}
                        byNode={pods.byNode}
                        ghosts={ghostCounts}
                        guarded={protection.index}
                        fences={fenceBadges}
                        compact={density === 'compact'}
                        selected={selected}
                        matching={matching}
                        onSelect={onSelect}
                      />
                    ))}
                  </div>
                </section>
              ))}
            </div>
          )}
        </div>
        {selected && cluster && (
          <div className="fixed inset-0 z-40 md:static md:z-auto">
            <NodePanel
              cluster={cluster}
              name={selected}
              live={nodes?.byKey.get(selected)}
              pods={pods?.byNode.get(selected) ?? NO_PODS}
              guarded={protection.index}
              fence={fences.get(selected)}
              onClose={() => setSelection(undefined)}
            />
          </div>
        )}
      </div>
    </div>
  );
}

interface RackProps {
  rack: RackGroup<NodeView>;
  compact: boolean;
  ghosts: GhostCounts;
  guarded: PodProtectorIndex;
  /** node -> its NodeFence, or the fence a policy will start */
  fences: Map<string, FenceBadge>;
  byNode: PodCollection['byNode'];
  selected: string | undefined;
  matching: Set<string> | undefined;
  onSelect: (name: string) => void;
}

/** A rack re-renders only when its own nodes, their pods, the selection or the filter change. */
function sameRack(a: RackProps, b: RackProps): boolean {
  if (
    a.rack !== b.rack ||
    a.matching !== b.matching ||
    a.onSelect !== b.onSelect ||
    a.compact !== b.compact ||
    a.guarded !== b.guarded ||
    a.fences !== b.fences
  )
    return false;
  for (const n of b.rack.nodes) {
    if (a.ghosts !== b.ghosts && a.ghosts.get(n.name)?.total !== b.ghosts.get(n.name)?.total) return false;
    if (a.ghosts !== b.ghosts && a.ghosts.get(n.name)?.critical !== b.ghosts.get(n.name)?.critical)
      return false;
    if ((a.selected === n.name) !== (b.selected === n.name)) return false;
    if (a.byNode !== b.byNode && a.byNode.get(n.name) !== b.byNode.get(n.name)) return false;
  }
  return true;
}

const Rack = memo(function Rack({
  rack,
  compact,
  byNode,
  ghosts,
  guarded,
  fences,
  selected,
  matching,
  onSelect,
}: RackProps) {
  return (
    <div
      className="rounded border border-line/70 bg-panel/60 p-1.5 [contain:content]"
      style={{ contentVisibility: 'auto', containIntrinsicSize: 'auto 240px auto 120px' }}
    >
      <div className="mb-1 flex gap-1 font-mono text-[10px] text-dim">
        rack {rack.rack}
        <DownCount nodes={rack.nodes} of={rack.nodes.length} testId={`rack-down-${rack.rack}`} />
        <span className="ml-auto">
          <CordonGroupButton scope={`rack ${rack.rack}`} nodes={rack.nodes} />
        </span>
      </div>
      <div
        className={`flex flex-wrap ${compact ? 'gap-[3px]' : 'gap-1.5'}`}
        style={{ maxWidth: compact ? 20 * 17 : 6 * 116 }}
      >
        {rack.nodes.map((n) => (
          <NodeTile
            key={n.name}
            node={n}
            pods={byNode.get(n.name) ?? NO_PODS}
            ghosts={ghosts.get(n.name)}
            guarded={guarded}
            fence={fences.get(n.name)}
            compact={compact}
            selected={selected === n.name}
            dimmed={matching ? !matching.has(n.name) : false}
            onSelect={onSelect}
          />
        ))}
      </div>
    </div>
  );
}, sameRack);

const DENSITY_KEY = 'palisade.mapDensity';

/** The map density the user chose (remembered in localStorage), default auto. */
function useDensityChoice(): [DensityChoice, (c: DensityChoice) => void] {
  const [choice, setChoice] = useState<DensityChoice>('auto');
  useEffect(() => {
    try {
      setChoice(parseDensity(window.localStorage.getItem(DENSITY_KEY)));
    } catch {
      // storage unavailable: auto
    }
  }, []);
  const set = useCallback((c: DensityChoice) => {
    setChoice(c);
    try {
      window.localStorage.setItem(DENSITY_KEY, c);
    } catch {
      // ignore
    }
  }, []);
  return [choice, set];
}

function DensitySwitch({
  choice,
  effective,
  onChange,
}: {
  choice: DensityChoice;
  effective: Density;
  onChange: (c: DensityChoice) => void;
}) {
  return (
    <label className="flex items-center gap-1 text-xs text-dim">
      Density
      <select
        aria-label="Map density"
        value={choice}
        onChange={(e) => onChange(parseDensity(e.target.value))}
        className="rounded border border-line bg-panel px-1 py-0.5 text-fg"
      >
        <option value="auto">auto ({effective})</option>
        <option value="tiles">tiles</option>
        <option value="compact">compact</option>
      </select>
    </label>
  );
}

function MapPlaceholder({ text }: { text: string }) {
  return (
    <div
      className="flex h-48 items-center justify-center rounded border border-dashed border-line text-sm text-dim"
      role="status"
    >
      {text}
    </div>
  );
}

function Legend() {
  return (
    <details className="ml-auto text-xs text-dim">
      <summary className="cursor-pointer select-none">Legend</summary>
      <div className="absolute right-3 z-20 mt-1 grid grid-cols-2 gap-x-6 gap-y-1 rounded border border-line bg-panel p-2 shadow-lg">
        <div className="flex flex-col gap-1">
          <span className="font-semibold text-fg">Nodes</span>
          {NODE_DISPLAY_STATES.map((s) => (
            <span key={s} className="flex items-center gap-1.5">
              <NodeStateMark state={s} />
              {NODE_STATE_LABEL[s]}
            </span>
          ))}
          <span>tiles name every state but Ready</span>
        </div>
        <div className="flex flex-col gap-1">
          <span className="font-semibold text-fg">Pods</span>
          {POD_STATES.map((s) => (
            <span key={s} className="flex items-center gap-1.5">
              <span className={`inline-block h-2.5 w-2.5 rounded-sm ${POD_DOT_CLASS[s]}`} />
              {s}
            </span>
          ))}
          <span>hollow: Pending / Terminating</span>
          <span className="flex items-center gap-1.5">
            <span className="inline-flex h-2.5 w-2.5 items-center justify-center rounded-sm bg-ok">
              <span className="h-1 w-1 bg-slate-900" />
            </span>
            dark centre: guarded by a PodProtector
          </span>
        </div>
      </div>
    </details>
  );
}

/** Pods on no node (Pending, or Podseidon's update-trigger pod, which is never scheduled), named. */
function Unscheduled({ pods }: { pods: readonly PodView[] }) {
  const { cluster } = useCluster();
  if (!pods.length || !cluster) return null;
  const shown = pods.slice(0, 3);
  return (
    <span className="text-xs text-warn" data-testid="unscheduled">
      {pods.length === 1 ? '1 pod' : `${pods.length} pods`} not scheduled to any node:{' '}
      {shown.map((p, i) => (
        <span key={p.uid}>
          {i > 0 && ', '}
          <Link href={podHref(cluster, p)} className="font-mono hover:underline">
            {p.namespace}/{p.name}
          </Link>
        </span>
      ))}
      {pods.length > shown.length && ` and ${pods.length - shown.length} more`}
    </span>
  );
}

/** "2/4 down" beside a zone's or rack's name, in words and only when some are: the roll-up. */
function DownCount({ nodes, of, testId }: { nodes: readonly NodeView[]; of: number; testId: string }) {
  const down = failedCount(nodes, Date.now());
  if (!down) return null;
  return (
    <span data-testid={testId} className="font-semibold normal-case text-crit">
      {down === of ? `all ${of} down` : `${down}/${of} down`}
    </span>
  );
}
