'use client';
// Applies lib/console/ui/title to the tab: its title carries "⚠ 2 fences in 8 s" or "● 3 nodes
// down", its favicon a red or amber dot, and both go back once all is calm. Re-applied every
// second while something is wrong: a navigation sets a fresh title without the prefix.
import { useEffect, useRef } from 'react';
import { FAVICON, incidentTitle, titled } from '@/lib/console/ui/title';
import { failedCount } from '@/lib/incident/nodes';
import { useNow } from '../console/clock';
import { useCluster } from '../console/cluster';
import { useNodes } from '../console/live';
import { useAnnounced } from '../fencing/live';

export function IncidentTitle() {
  const { cluster } = useCluster();
  const nodes = useNodes(cluster);
  const { summary } = useAnnounced();
  const now = useNow(1000);
  const last = useRef<string | undefined>(undefined);
  const down = nodes && now ? failedCount(nodes.byKey.values(), now) : 0;
  const t = now ? incidentTitle(summary, down, now) : { level: 'calm' as const };
  // biome-ignore lint/correctness/useExhaustiveDependencies: `now` re-applies the prefix after a navigation
  useEffect(() => {
    document.title = titled(document.title, last.current, t.prefix);
    last.current = t.prefix;
    const icon = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
    if (icon && !icon.href.endsWith(FAVICON[t.level])) icon.href = FAVICON[t.level];
  }, [t.prefix, t.level, now]);
  return null;
}
