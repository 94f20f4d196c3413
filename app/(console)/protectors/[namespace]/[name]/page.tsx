import type { Metadata } from 'next';
import { ProtectorDetail } from '@/components/protection/ProtectorDetail';

type Params = { namespace: string; name: string };

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `Protector ${decodeURIComponent(p.namespace)}/${decodeURIComponent(p.name)}` };
}

export default async function ProtectorPage({ params }: { params: Promise<Params> }) {
  const p = await params;
  return <ProtectorDetail namespace={decodeURIComponent(p.namespace)} name={decodeURIComponent(p.name)} />;
}
