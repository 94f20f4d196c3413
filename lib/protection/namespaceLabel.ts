// Which namespaces the pod-deletion webhook matches: those holding a PodProtector, marked with
// a label the leader keeps in step (server/protection/namespaceLabels.ts). A namespace without
// protectors is never reviewed, so an outage or added latency of the webhook never touches it.
// Pure.

export const PROTECTED_NAMESPACE_LABEL = 'palisade.dev/deletion-protection';
export const PROTECTED_NAMESPACE_VALUE = 'enabled';

export type LabelChange = 'add' | 'remove' | 'none';

/**
 * The change a namespace's labels need: labelled exactly while it holds a protector (a
 * dangling one too: it still protects). `labelValue` is the label's current value, if any.
 */
export function labelChange(holdsProtector: boolean, labelValue: string | undefined): LabelChange {
  const labelled = labelValue === PROTECTED_NAMESPACE_VALUE;
  if (holdsProtector && !labelled) return 'add';
  if (!holdsProtector && labelValue !== undefined) return 'remove';
  return 'none';
}
