'use client';
// The incident commander's view: what is broken (the situation, with its 5/15-minute changes and
// how fresh the data is), what is at risk and what is safe next, and what is being done per
// failed node. Live through the incident room; nothing polls.
import { useCluster } from '../console/cluster';
import { AtRiskList } from './AtRiskList';
import { FreshnessNote, StaleBanner } from './Freshness';
import { useIncident } from './live';
import { RemediationTable } from './RemediationTable';
import { Situation } from './Situation';

export function IncidentPage() {
  const { cluster, query } = useIncident();
  const { current } = useCluster();
  const data = query.data;
  const readOnly = current?.mode === 'read-only';
  return (
    <div className="flex min-h-0 flex-1 flex-col overflow-auto" data-testid="incident-page">
      <header className="flex flex-wrap items-center gap-3 border-b border-line bg-panel px-3 py-2">
        <h1 className="font-semibold">Incident</h1>
        {data && <FreshnessNote data={data} />}
        {data && (
          <p className="text-sm" role="status" data-testid="incident-status">
            {data.calm ? 'Nothing is broken' : 'Something is broken: see below'}
          </p>
        )}
      </header>
      {query.error && (
        <p role="alert" className="px-3 py-2 text-sm text-crit">
          Cannot read the incident view: {query.error.message}
        </p>
      )}
      {!data && !query.error && <p className="px-3 py-4 text-sm text-dim">Loading…</p>}
      {data && cluster && (
        <>
          <StaleBanner data={data} />
          {data.calm && (
            <p className="px-3 py-3 text-sm" data-testid="incident-calm">
              Nothing is broken. Every node is Ready, every workload has its replicas, no fence is under way
              and no volume is stuck.
            </p>
          )}
          <Situation data={data} />
          <AtRiskList cluster={cluster} data={data} readOnly={readOnly} />
          <RemediationTable cluster={cluster} data={data} readOnly={readOnly} />
        </>
      )}
    </div>
  );
}
