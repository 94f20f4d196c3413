import type { Metadata } from 'next';
import { PodDetail } from '@/components/pod/PodDetail';

type Params = { cluster: string; ns: string; name: string };

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.ns)}/${decodeURIComponent(p.name)}` };
}

export default async function PodPage({ params }: { params: Promise<Params> }) {
  const p = await params;
  return (
    <PodDetail
      cluster={decodeURIComponent(p.cluster)}
      namespace={decodeURIComponent(p.ns)}
      name={decodeURIComponent(p.name)}
    />
  );
}
