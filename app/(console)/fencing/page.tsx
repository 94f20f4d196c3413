import type { Metadata } from 'next';
import { FencingPage } from '@/components/fencing/FencingPage';

export const metadata: Metadata = { title: 'Fencing' };

export default function Fencing() {
  return <FencingPage />;
}
