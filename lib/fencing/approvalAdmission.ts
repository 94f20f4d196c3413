// Approving and cancelling a fence are decisions a person must be allowed to take, whichever
// client writes them: Palisade's admission webhook judges every NodeFence write that sets or
// changes spec.approvedBy/approvedAt (needs the custom verb `approve`) or spec.cancelRequested
// (needs `cancel`) or spec.requestedBy (a person's "Fence now": needs `approve`, since the fence
// then runs without anyone else's approval), asks the cluster whether the requesting user holds that verb on the fence
// (SubjectAccessReview), and refuses a write that names someone else as the approver or canceller.
// Pure: which verbs a write needs, and whether the names match.

export interface FenceSpecLike {
  approvedBy?: string | null;
  approvedAt?: string | null;
  cancelRequested?: { by?: string; at?: string; reason?: string } | null;
  requestedBy?: { by?: string; at?: string; reason?: string } | null;
}

export interface FenceWrite {
  /** undefined on CREATE */
  old?: FenceSpecLike;
  new: FenceSpecLike;
  /** the requesting user, from the AdmissionReview's userInfo */
  username: string;
}

export type ApprovalVerdict =
  | { kind: 'free' }
  | { kind: 'needs'; verbs: ('approve' | 'cancel')[] }
  | { kind: 'refused'; message: string };

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function judgeFenceWrite(w: FenceWrite): ApprovalVerdict {
  const o = w.old ?? {};
  const n = w.new;
  const approving = !same(o.approvedBy, n.approvedBy) || !same(o.approvedAt, n.approvedAt);
  const cancelling = !same(o.cancelRequested, n.cancelRequested);
  const requesting = !same(o.requestedBy, n.requestedBy);
  const verbs: ('approve' | 'cancel')[] = [];
  if (requesting) {
    const by = n.requestedBy?.by;
    if (by && by !== w.username)
      return {
        kind: 'refused',
        message: `spec.requestedBy.by must name the user who asks for the fence (${w.username}), not "${by}"`,
      };
  }
  if (approving || requesting) {
    if (n.approvedBy && n.approvedBy !== w.username)
      return {
        kind: 'refused',
        message: `spec.approvedBy must name the user who approves (${w.username}), not "${n.approvedBy}"`,
      };
    verbs.push('approve');
  }
  if (cancelling) {
    const by = n.cancelRequested?.by;
    if (by && by !== w.username)
      return {
        kind: 'refused',
        message: `spec.cancelRequested.by must name the user who cancels (${w.username}), not "${by}"`,
      };
    verbs.push('cancel');
  }
  return verbs.length ? { kind: 'needs', verbs } : { kind: 'free' };
}
