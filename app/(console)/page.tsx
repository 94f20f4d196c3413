import type { Metadata } from 'next';
import { ClusterMap } from '@/components/map/ClusterMap';

export const metadata: Metadata = { title: 'Cluster map' };

export default function MapPage() {
  return <ClusterMap />;
}
