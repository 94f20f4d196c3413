// Whether the console may carry out a change on a cluster, by the cluster's mode.
// read-only: never. protected: only when the request names its target again (the UI makes
// the user type it), so a stray click on a production cluster changes nothing.
export type ClusterMode = 'normal' | 'read-only' | 'protected';

export type ActionVerdict =
  | { allowed: true }
  | { allowed: false; code: 'FORBIDDEN' | 'PRECONDITION_FAILED'; message: string };

export interface ActionRequest {
  cluster: string;
  mode: ClusterMode;
  /** what the action changes, e.g. the node's name */
  target: string;
  /** what the user typed to confirm, if anything */
  confirm?: string;
}

export function judgeAction(r: ActionRequest): ActionVerdict {
  if (r.mode === 'read-only')
    return {
      allowed: false,
      code: 'FORBIDDEN',
      message: `cluster "${r.cluster}" is read-only: Palisade does not change it`,
    };
  if (r.mode === 'protected' && r.confirm !== r.target)
    return {
      allowed: false,
      code: 'PRECONDITION_FAILED',
      message:
        r.confirm === undefined
          ? `cluster "${r.cluster}" is protected: confirm by typing "${r.target}"`
          : `cluster "${r.cluster}" is protected: the confirmation "${r.confirm}" does not match "${r.target}"`,
    };
  return { allowed: true };
}
