import type { Metadata } from 'next';
import { NodesList } from '@/components/lists/NodesList';

export const metadata: Metadata = { title: 'Nodes' };

export default function NodesPage() {
  return <NodesList />;
}
