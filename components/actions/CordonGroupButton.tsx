'use client';
// Cordon a whole zone or rack from the map (issue 25, 5: zone-level actions): every node there
// that is still schedulable, each its own cordonNode through the one seam (BulkActionDialog);
// when all of them are cordoned already, the button uncordons them instead.
import type { NodeView } from '@/lib/console/protocol';
import { useMay } from '../auth/access';
import { useCluster } from '../console/cluster';
import { openBulkAction } from './BulkActionDialog';

export function CordonGroupButton({ scope, nodes }: { scope: string; nodes: readonly NodeView[] }) {
  const { cluster, current } = useCluster();
  const open = nodes.filter((n) => !n.unschedulable);
  const uncordon = open.length === 0;
  const targets = uncordon ? nodes : open;
  const action = uncordon ? 'uncordonNode' : 'cordonNode';
  const may = useMay(cluster, { action, node: targets[0]?.name ?? '' });
  if (!cluster || targets.length === 0) return null;
  const denied = may.allowed === false;
  const readOnly = current?.mode === 'read-only';
  const verb = uncordon ? 'Uncordon' : 'Cordon';
  const n = targets.length;
  const title = denied
    ? may.reason
    : readOnly
      ? 'read-only cluster'
      : `${verb} the ${n} ${uncordon ? 'cordoned' : 'schedulable'} ${n === 1 ? 'node' : 'nodes'} of ${scope}`;
  return (
    <button
      type="button"
      title={title}
      aria-label={`${verb} ${scope}…`}
      disabled={denied || readOnly}
      data-testid={`cordon-group-${scope.replace(/\s+/g, '-')}`}
      onClick={() =>
        openBulkAction({
          cluster,
          testId: 'cordon-group',
          title: `${verb} ${scope}: ${n} ${n === 1 ? 'node' : 'nodes'}`,
          intro: uncordon
            ? 'The scheduler may place pods on each node again (a node that is not Ready still gets none until it is).'
            : 'The scheduler places no new pod on these nodes; what runs there keeps running. Drain a node from its panel to move its pods.',
          action,
          reasonRequired: false,
          items: targets.map((node) => ({
            key: node.name,
            label: node.name,
            target: { action, cluster, node: node.name },
            detail: <span className="text-dim">{node.ready}</span>,
          })),
          words: {
            doing: uncordon ? 'uncordoning…' : 'cordoning…',
            done: 'done',
            notDone: 'not done',
            keep: 'Close',
            submit: `${verb} ${n} ${n === 1 ? 'node' : 'nodes'}`,
          },
        })
      }
      className="rounded border border-line px-1 font-normal normal-case text-dim hover:border-info hover:text-fg disabled:opacity-50"
    >
      {verb}…
    </button>
  );
}
