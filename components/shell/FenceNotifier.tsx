'use client';
// Shows a browser notification when Palisade announces a fence or one is held (lib/console/ui/
// notify decides which), once notifications are on (fenceNotify). Clicking one brings the tab
// forward on the incident view, where Cancel is on the first screen.
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { formatClock } from '@/lib/console/ui/format';
import { fenceNotices } from '@/lib/console/ui/notify';
import { useCluster } from '../console/cluster';
import { useAnnounced, useFencing } from '../fencing/live';
import { useFenceNotify } from './fenceNotify';

export function FenceNotifier() {
  const { cluster } = useCluster();
  const { data } = useFencing();
  const { summary } = useAnnounced();
  const state = useFenceNotify();
  const router = useRouter();
  const seen = useRef<{ cluster?: string; keys?: Set<string> }>({});
  useEffect(() => {
    if (!cluster || !data?.enabled) return;
    // another cluster: a new baseline, not a burst of what it already shows
    if (seen.current.cluster !== cluster) seen.current = { cluster };
    const r = fenceNotices(seen.current.keys, cluster, summary.items, data.held, Date.now(), formatClock);
    seen.current.keys = r.seen;
    if (state !== 'on') return;
    for (const n of r.notices) {
      let shown: Notification;
      try {
        shown = new Notification(n.title, { body: n.body, tag: n.tag });
      } catch {
        // some browsers (Chrome on Android) notify only through a service worker: the bar still shows it
        return;
      }
      shown.onclick = () => {
        window.focus();
        router.push('/incident');
        shown.close();
      };
    }
  }, [cluster, data, summary, state, router]);
  return null;
}
