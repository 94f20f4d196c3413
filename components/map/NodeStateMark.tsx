import { NODE_MARK_CLASS, type NodeDisplayState } from '@/lib/console/ui/states';

/** A node state's mark: its colour in its own shape (decorative: the state is said in words). */
export function NodeStateMark({
  state,
  className = 'h-2.5 w-2.5',
}: {
  state: NodeDisplayState;
  className?: string;
}) {
  return (
    <span aria-hidden="true" className={`inline-block shrink-0 ${className} ${NODE_MARK_CLASS[state]}`} />
  );
}
