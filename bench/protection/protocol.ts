// Messages between bench/protection/run.ts and its children (the embedded cluster, the
// webhook, the aggregator), over the fork IPC channel: one ready message, then calls
// answered by id.

export type ChildMessage =
  | { type: 'ready'; info: ReadyInfo }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: string }
  | { type: 'error'; message: string };

export interface ParentCall {
  type: 'call';
  id: number;
  op: string;
  arg?: unknown;
}

export interface ReadyInfo {
  /** the cluster child: where it wrote its kubeconfig (infra.json beside it) */
  kubeconfigPath?: string;
}

/** CPU time of a child so far, from process.cpuUsage() (microsecond resolution). */
export interface Cpu {
  userUs: number;
  systemUs: number;
}

/** One AdmissionReview as the webhook answered it, timed inside the webhook process. */
export interface DecideRecord {
  /** wall clock (ms since epoch) when the review reached Admission.decide() */
  at: number;
  /** Admission.decide(): matching, the RetryBatch wait and the status write */
  ms: number;
  allowed: boolean;
  code: number;
  /** the pod was already terminating (answered without the RetryBatch) */
  terminating: boolean;
  /** the pod matched at least one protector */
  protected: boolean;
  podUid: string;
}

export interface WebhookStats {
  cpu: Cpu;
  decisions: DecideRecord[];
  /** every HTTPS request to the webhook, from its request event to the last byte written */
  httpMs: number[];
  /** TLS connections the webhook accepted */
  connections: number;
  /** the webhook's calls to the API server: PUT …/status, and GET …/status after a conflict */
  apiMs: { write: number[]; read: number[] };
  /** PodProtector status writes by the webhook, by outcome (ok, conflict, error) */
  statusWrites: Record<string, number>;
  /** RetryBatch round sizes, from the batch-size histogram */
  rounds: { count: number; sum: number };
}

export interface AggregatorStats {
  cpu: Cpu;
  statusWrites: Record<string, number>;
  reconciles: Record<string, number>;
}

export interface Violation {
  subject: string;
  message: string;
}
