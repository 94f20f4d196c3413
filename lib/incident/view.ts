// The incident view from the server's memory and the situation samples. Pure.
import { atRiskOf } from './atRisk.js';
import { capacityOf } from './capacity.js';
import { freshnessOf } from './freshness.js';
import { headlineOf } from './headline.js';
import { serviceImpactOf } from './services.js';
import { spreadOf } from './spread.js';
import { remediationOf } from './remediation.js';
import { isCalm, situationOf } from './situation.js';
import { changesOf } from './trend.js';
import { type IncidentObject, incidentCard } from './record';
import type { IncidentInput, IncidentView, SituationSample } from './types.js';

export function incidentView(
  i: IncidentInput,
  samples: SituationSample[],
  incidents: readonly IncidentObject[] = [],
): IncidentView {
  const incident = incidentCard(incidents, i.now);
  const situation = situationOf(i);
  const { rows, more } = atRiskOf(i);
  const remediation = remediationOf(i);
  const services = serviceImpactOf(i);
  const capacity = capacityOf(i);
  return {
    now: i.now,
    headline: headlineOf(i),
    ...(incident ? { incident } : {}),
    situation,
    changes: changesOf(i.now, situation, samples),
    freshness: freshnessOf({
      now: i.now,
      watches: i.watches,
      heartbeatsExpected: i.nodes.some((n) => n.ready === 'Ready'),
      heartbeatIntervalMs: i.heartbeatIntervalMs,
    }),
    atRisk: rows,
    atRiskMore: more,
    remediation,
    spread: spreadOf(i),
    services: services.rows,
    servicesMore: services.more,
    ...(capacity ? { capacity } : {}),
    calm: isCalm(situation) && rows.length === 0 && remediation.length === 0,
  };
}
