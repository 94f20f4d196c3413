'use client';
import type { Ghost } from '@/lib/console/ghosts';
import { formatAge } from '@/lib/console/ui/format';

/**
 * Processes the ground truth shows running where the API cannot see them. Simulation-only
 * insight, so it is framed and labelled as such wherever it appears.
 */
export function GhostList({
  ghosts,
  title,
  now,
  empty,
}: {
  ghosts: readonly Ghost[];
  title: string;
  now: number;
  empty?: string;
}) {
  if (ghosts.length === 0 && !empty) return null;
  const critical = ghosts.some((g) => g.critical);
  return (
    <section
      aria-label={title}
      className={`rounded border border-dashed p-2 text-xs ${critical ? 'border-crit/70 bg-crit/5' : 'border-info/60 bg-info/5'}`}
    >
      <h3 className={`mb-1 font-semibold uppercase tracking-wide ${critical ? 'text-crit' : 'text-info'}`}>
        {title} <span className="font-normal normal-case text-dim">(ground truth, simulation)</span>
      </h3>
      {ghosts.length === 0 ? (
        <p className="text-dim">{empty}</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {ghosts.map((g) => (
            <li key={g.id} className="flex flex-col">
              <span className={g.critical ? 'text-crit' : 'text-warn'}>
                {g.critical ? 'ghost: ' : 'unseen: '}
                {g.message}
              </span>
              <span className="font-mono text-[10px] text-dim">
                process {g.id} · pod uid {g.podUid.slice(0, 8)} · running for {formatAge(now - g.startedAt)}
                {g.volumes.length ? ` · writes ${g.volumes.join(', ')}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
