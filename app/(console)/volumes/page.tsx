import type { Metadata } from 'next';
import { VolumesPage } from '@/components/volumes/VolumesPage';

export const metadata: Metadata = { title: 'Volumes' };

export default function Volumes() {
  return <VolumesPage />;
}
