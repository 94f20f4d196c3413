'use client';
// Capacity and where replacements can start (issue 25, 4): the room each zone has left, and for
// each workload with pods on a failed node whether its replacement can start anywhere now — the
// question to answer before fencing a dark zone, whose StatefulSet pods may have nowhere to go
// because their volumes live there. Shown while a node is down.
import { replacementSubject, replacementText, zoneText } from '@/lib/incident/capacityText';
import type { IncidentData } from './live';

export function Capacity({ data }: { data: IncidentData }) {
  const c = data.capacity;
  if (!c?.zones.some((z) => z.up < z.nodes)) return null;
  return (
    <section aria-labelledby="incident-capacity-h" data-testid="incident-capacity" className="px-3 py-2">
      <h2 id="incident-capacity-h" className="mb-1 text-sm font-semibold">
        Capacity and where replacements can start
      </h2>
      <ul className="flex flex-col gap-0.5 text-sm" aria-label="Room per zone">
        {c.zones.map((z) => (
          <li key={z.zone} data-testid={`incident-capacity-zone-${z.zone || 'none'}`}>
            {zoneText(z)}
          </li>
        ))}
      </ul>
      {c.replacements.length > 0 && (
        <ul className="mt-1 flex flex-col gap-0.5 text-sm" aria-label="Replacements of stuck pods">
          {c.replacements.map((r) => (
            <li
              key={`${r.workload.kind}/${r.workload.namespace}/${r.workload.name}/${r.stuck[0]}`}
              data-testid="incident-replacement"
              data-fits={r.fits.length > 0}
            >
              <span className="font-mono">{replacementSubject(r)}</span>:{' '}
              <span className={r.fits.length ? '' : 'font-semibold text-crit'}>{replacementText(r)}</span>
            </li>
          ))}
        </ul>
      )}
      {c.more > 0 && <p className="text-xs text-dim">and {c.more} more</p>}
      <p className="mt-1 text-xs text-dim">
        The scheduler's node selector, affinity, taint, volume and resource filters on what the console sees
        now; pod affinity and topology spread are not counted.
      </p>
    </section>
  );
}
