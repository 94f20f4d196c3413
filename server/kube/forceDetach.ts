// The one source of a cluster's force-detach time (kube-controller-manager's
// maxWaitForUnmountDuration: how long the attach/detach controller waits before it detaches a
// volume from a node that stopped answering). The Volumes page's countdown and the force-delete
// dialog's reasons both read it here, so they cannot disagree. The embedded cluster says its
// own (scaled) setting in its infra file; for a real cluster Palisade cannot read the
// controller manager's flags, so it assumes the default (6 minutes, force detach on) and says so.
import { DEFAULT_FORCE_DETACH } from '../../lib/guard/forceDelete.js';
import type { ForceDetachFacts } from '../../lib/guard/types.js';
import type { ClusterSpec } from './connection.js';

/** kube-controller-manager's: maxWaitForUnmountDuration is fixed at 6 minutes, force detach on. */
export const KUBE_FORCE_DETACH = {
  enabled: DEFAULT_FORCE_DETACH.enabled,
  maxWaitMs: DEFAULT_FORCE_DETACH.maxWaitMs,
};

export function forceDetachOf(conn: { spec: Pick<ClusterSpec, 'forceDetach'> }): ForceDetachFacts {
  const own = conn.spec.forceDetach;
  return own ? { ...own, source: 'cluster' } : { ...KUBE_FORCE_DETACH, source: 'assumed' };
}
