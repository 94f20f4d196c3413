import type { Metadata } from 'next';
import { IncidentPage } from '@/components/incident/IncidentPage';

export const metadata: Metadata = { title: 'Incident' };

export default function Incident() {
  return <IncidentPage />;
}
