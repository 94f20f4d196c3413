import type { Metadata } from 'next';
import { Suspense } from 'react';
import { TimelinePage } from '@/components/timeline/TimelinePage';

export const metadata: Metadata = { title: 'Timeline' };

export default function TimelineRoute() {
  // the view is the URL's query (the shareable link): read on the client
  return (
    <Suspense fallback={<p className="p-3 text-dim">loading…</p>}>
      <TimelinePage />
    </Suspense>
  );
}
