// What every write carries: who asks, and whether it is a dry run.
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface WriteOptions {
  user: UserInfo;
  dryRun: boolean;
  fieldManager?: string;
  /** internal: the delete behind an eviction skips DELETE admission, as in kube-apiserver */
  skipAdmission?: boolean;
  /** a client's write: RBAC objects it writes must not grant more than its user holds */
  escalationCheck?: boolean;
}

export interface WriteResult<T> {
  obj: T;
  /** the stored serialization, when the object was just stored (saves a stringify) */
  json?: string;
  warnings: string[];
  /** HTTP status the REST layer should answer with */
  code: number;
}
