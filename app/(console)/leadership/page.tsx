import type { Metadata } from 'next';
import { LeadershipPage } from '@/components/leadership/LeadershipPage';

export const metadata: Metadata = { title: 'Leadership' };

export default function Leadership() {
  return <LeadershipPage />;
}
