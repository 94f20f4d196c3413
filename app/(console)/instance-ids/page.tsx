import type { Metadata } from 'next';
import { InstanceIdsPage } from '@/components/instanceIds/InstanceIdsPage';

export const metadata: Metadata = { title: 'Instance IDs' };

export default function InstanceIds() {
  return <InstanceIdsPage />;
}
