'use client';
// The incident commander's view: what is broken (the situation, with its 5/15-minute changes and
// how fresh the data is), what is at risk and what is safe next, and what is being done per
// failed node. Live through the incident room; nothing polls.
import { formatClock } from '@/lib/console/ui/format';
import { headlineText } from '@/lib/incident/headline';
import { useCluster } from '../console/cluster';
import { NotifyToggle } from '../shell/NotifyToggle';
import { AnnouncedFences } from './Announced';
import { AtRiskList } from './AtRiskList';
import { Capacity } from './Capacity';
import { FreshnessNote, StaleBanner } from './Freshness';
import { DeclareIncident, IncidentRecord } from './IncidentRecord';
import { useIncident } from './live';
import { Placement } from './Placement';
import { RemediationTable } from './RemediationTable';
import { ServiceImpact } from './ServiceImpact';
import { Situation } from './Situation';
import { ZoneRollups } from './Zones';

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
          <p
            className={`text-sm ${data.calm ? '' : 'font-semibold text-warn'}`}
            role="status"
            data-testid="incident-status"
          >
            {statusText(data)}
          </p>
        )}
        <NotifyToggle className="ml-auto" />
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
          <AnnouncedFences cluster={cluster} readOnly={readOnly} />
          {data.incident && <IncidentRecord incident={data.incident} cluster={cluster} readOnly={readOnly} />}
          {/* none open: a person may declare one (the tracker declares its own when a node goes down) */}
          {(!data.incident || data.incident.resolvedAt !== undefined) && (
            <DeclareIncident cluster={cluster} readOnly={readOnly} />
          )}
          {data.calm && (
            <p className="px-3 py-3 text-sm" data-testid="incident-calm">
              Nothing is broken. Every node is Ready, every workload has its replicas, no fence is under way
              and no volume is stuck.
            </p>
          )}
          <ZoneRollups headline={data.headline} />
          <Capacity data={data} />
          <ServiceImpact cluster={cluster} data={data} />
          <Situation data={data} />
          <AtRiskList cluster={cluster} data={data} readOnly={readOnly} />
          <RemediationTable cluster={cluster} data={data} readOnly={readOnly} />
          <Placement cluster={cluster} data={data} readOnly={readOnly} />
        </>
      )}
    </div>
  );
}

/** The headline; when it finds nothing but the view is not calm (an at-risk row, a stuck volume), say so. */
function statusText(data: NonNullable<ReturnType<typeof useIncident>['query']['data']>): string {
  if (data.calm) return 'Nothing is broken';
  const h = headlineText(data.headline, formatClock);
  return h === 'Nothing is broken' ? 'Something needs attention: see below' : h;
}
