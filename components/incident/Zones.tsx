'use client';
// Per-zone and per-rack roll-ups for the incident view (issue 25): which zones and racks are
// down and how much is left, in words. Zones with a node down first; the others in one line.
import type { Headline } from '@/lib/incident/headline';

export function ZoneRollups({ headline }: { headline: Headline }) {
  const hit = headline.zones.filter((z) => z.down > 0);
  if (!hit.length) return null;
  const whole = headline.zones.filter((z) => z.down === 0);
  return (
    <section aria-labelledby="incident-zones-h" data-testid="incident-zones" className="px-3 py-2">
      <h2 id="incident-zones-h" className="mb-1 text-sm font-semibold">
        Zones and racks
      </h2>
      <ul className="flex flex-col gap-0.5 text-sm">
        {hit.map((z) => (
          <li key={z.zone} data-testid={`incident-zone-${z.zone || 'none'}`}>
            <span className="font-semibold">{z.zone || 'no zone'}</span>:{' '}
            {z.down === z.nodes ? `all ${z.nodes} nodes down` : `${z.down} of ${z.nodes} nodes down`}
            <span className="text-dim">
              {' '}
              (
              {z.racks
                .map(
                  (r) =>
                    `rack ${r.rack || '—'} ${r.down === r.nodes ? 'down' : `${r.nodes - r.down}/${r.nodes} up`}`,
                )
                .join(', ')}
              )
            </span>
          </li>
        ))}
        {whole.length > 0 && (
          <li className="text-dim">
            {whole.map((z) => `${z.zone || 'no zone'} (${z.nodes})`).join(', ')}: every node up
          </li>
        )}
      </ul>
    </section>
  );
}
