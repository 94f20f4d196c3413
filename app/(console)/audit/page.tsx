import type { Metadata } from 'next';
import { AuditPage } from '@/components/audit/AuditPage';

export const metadata: Metadata = { title: 'Audit' };

export default function AuditRoute() {
  return <AuditPage />;
}
