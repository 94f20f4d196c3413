import type { Metadata } from 'next';
import { PodsList } from '@/components/lists/PodsList';

export const metadata: Metadata = { title: 'Pods' };

export default function PodsPage() {
  return <PodsList />;
}
