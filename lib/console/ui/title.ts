// The tab's title and favicon during an incident (issue 25): a commander with the console in a
// background tab sees "⚠ 2 fences in 8 s" or "● 3 nodes down" without switching to it. Pure:
// the words from the announced fences and the failed-node count; the page applies them.
import type { AnnouncedSummary } from '../../fencing/announced';
import { announcedText } from '../../fencing/announced';

export type TitleLevel = 'calm' | 'warn' | 'crit';

export interface IncidentTitle {
  level: TitleLevel;
  /** put before the page's own title; undefined when calm */
  prefix?: string;
}

export const FAVICON: Record<TitleLevel, string> = {
  calm: '/favicon.svg',
  warn: '/favicon-warn.svg',
  crit: '/favicon-crit.svg',
};

export function incidentTitle(s: AnnouncedSummary, nodesDown: number, now: number): IncidentTitle {
  if (s.counting) return { level: 'crit', prefix: `⚠ ${announcedText(s, now)}` };
  if (nodesDown)
    return { level: 'warn', prefix: `● ${nodesDown} ${nodesDown === 1 ? 'node' : 'nodes'} down` };
  if (s.held) return { level: 'warn', prefix: `● ${announcedText(s, now)}` };
  return { level: 'calm' };
}

/** The document title with `prefix`, after taking off the one set before (`last`). */
export function titled(current: string, last: string | undefined, prefix: string | undefined): string {
  const base = last && current.startsWith(`${last} · `) ? current.slice(last.length + 3) : current;
  return prefix ? `${prefix} · ${base}` : base;
}
