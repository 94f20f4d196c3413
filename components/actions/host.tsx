'use client';
// One guarded-action dialog for the whole page, owned by a host mounted once in the shell, so
// that it outlives the button that opened it: a pod's page hides its "Force delete…" once the
// pod is gone, a node panel its "Remove taint…" once the taint is — and the dialog must stay to
// show the outcome. Without a host mounted, buttons keep the dialog themselves. The store is
// hostStore.ts.
import { useEffect, useSyncExternalStore } from 'react';
import { GuardedActionDialog } from './GuardedActionDialog';
import { closeHostDialog, hostMounted, hostState, subscribeHost } from './hostStore';

export { openGuardedAction } from './hostStore';

export function GuardedActionHost() {
  const s = useSyncExternalStore(subscribeHost, hostState, hostState);
  useEffect(() => hostMounted(), []);
  if (!s.target) return null;
  return (
    <GuardedActionDialog
      key={s.opened}
      target={s.target}
      onDone={s.onDone}
      onClose={() => closeHostDialog(s.opened)}
    />
  );
}
