import type { Metadata } from 'next';
import { ProtectorsList } from '@/components/protection/ProtectorsList';

export const metadata: Metadata = { title: 'Protectors' };

export default function ProtectorsPage() {
  return <ProtectorsList />;
}
