'use client';
// The Audit page: the recorded actions on the selected cluster — people's guarded actions and
// simulated faults, and Palisade's own fence steps (what each released, who cancelled) — from
// the history store, which keeps them past the Events' TTL (an hour by default) and restarts;
// live: the server signals the audit topic when one is recorded. Filters: who acted, the action,
// the outcome, and free text.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { GUARDED_ACTION_NAMES, GUARDED_ACTIONS } from '@/lib/guard/actions';
import { formatClock } from '@/lib/console/ui/format';
import type { AuditQuery } from '../actions/api';
import { useActionsApi } from '../actions/api';
import { useCluster } from '../console/cluster';
import { AuditTable } from './AuditTable';
import { useAuditLive } from './live';

type Filters = Pick<AuditQuery, 'action' | 'outcome' | 'text' | 'user'>;

export function AuditPage() {
  const { cluster } = useCluster();
  const api = useActionsApi();
  const [filters, setFilters] = useState<Filters>({});
  useAuditLive(cluster);
  // who appears in the audit at all: the choices of the user filter
  const everyone = useQuery({
    ...api.audit.queryOptions({ cluster: cluster ?? '' }),
    enabled: !!cluster,
    staleTime: 0,
  });
  const users = [...new Set((everyone.data ?? []).map((r) => r.by))].sort();
  const audit = useQuery({
    ...api.audit.queryOptions({ cluster: cluster ?? '', ...filters }),
    enabled: !!cluster,
    staleTime: 0,
  });
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2 p-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <h1 className="mr-2 text-base font-semibold">Audit</h1>
        <FilterBar filters={filters} onChange={setFilters} users={users} />
        <span className="ml-auto text-xs text-dim" data-testid="audit-live">
          live{audit.dataUpdatedAt ? ` · updated ${formatClock(audit.dataUpdatedAt)}` : ''}
        </span>
        <button
          type="button"
          onClick={() => void audit.refetch()}
          disabled={audit.isFetching}
          className="rounded border border-line bg-panel-2 px-2 py-0.5 text-xs disabled:opacity-50"
        >
          {audit.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <p className="text-xs text-dim">
        Every guarded action taken from this console (force delete, detach, out-of-service taint, fence
        approval and cancellation), every simulated fault, and every step Palisade took itself while fencing a
        node (what it released, which fences were cancelled), kept in Palisade’s history store for its
        retention, after the cluster’s Events expire. Refusals and dry runs change nothing and are not
        recorded.
      </p>
      {audit.isError && <p className="text-crit">Cannot read the audit: {audit.error.message}</p>}
      <div className="min-h-0 flex-1 overflow-auto rounded border border-line">
        <AuditTable
          rows={audit.data ?? []}
          now={audit.dataUpdatedAt || 0}
          empty={audit.isPending ? 'loading…' : 'no recorded actions'}
        />
      </div>
    </div>
  );
}

function FilterBar({
  filters,
  onChange,
  users,
}: {
  filters: Filters;
  onChange: (f: Filters) => void;
  users: string[];
}) {
  return (
    <>
      <select
        aria-label="User"
        value={filters.user ?? ''}
        onChange={(e) => onChange({ ...filters, user: e.target.value || undefined })}
        className="rounded border border-line bg-panel-2 px-1.5 py-0.5 text-xs"
      >
        <option value="">everyone</option>
        {users.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
      <select
        aria-label="Action"
        value={filters.action ?? ''}
        onChange={(e) => onChange({ ...filters, action: (e.target.value || undefined) as Filters['action'] })}
        className="rounded border border-line bg-panel-2 px-1.5 py-0.5 text-xs"
      >
        <option value="">all actions</option>
        {GUARDED_ACTION_NAMES.map((a) => (
          <option key={a} value={a}>
            {GUARDED_ACTIONS[a].label}
          </option>
        ))}
        <option value="simulation">Simulated faults</option>
        <option value="fence">Fences (Palisade)</option>
      </select>
      <select
        aria-label="Guard"
        value={filters.outcome ?? ''}
        onChange={(e) =>
          onChange({ ...filters, outcome: (e.target.value || undefined) as Filters['outcome'] })
        }
        className="rounded border border-line bg-panel-2 px-1.5 py-0.5 text-xs"
      >
        <option value="">every outcome</option>
        <option value="overridden">overridden only</option>
        <option value="safe">safe only</option>
        <option value="simulation">simulation only</option>
        <option value="automatic">automatic (Palisade) only</option>
        <option value="person">fence steps by a person only</option>
      </select>
      <input
        type="search"
        data-search
        aria-label="Search who, why, target"
        placeholder="who, why, target…"
        value={filters.text ?? ''}
        onChange={(e) => onChange({ ...filters, text: e.target.value || undefined })}
        className="w-48 rounded border border-line bg-panel-2 px-1.5 py-0.5 text-xs"
      />
    </>
  );
}
