// The client a pod's program uses to take its instance ID from Palisade and give it back:
// fetch only, nothing done at import. The pod proves who it is with its ServiceAccount token
// (the projected one every pod has, bound to the pod); Palisade accepts a request only for the
// pod that token is bound to.
//
//   const ids = new InstanceIdClient({ url: process.env.PALISADE_INSTANCE_IDS_URL!,
//     namespace: process.env.POD_NAMESPACE!, pod: process.env.POD_NAME!, token: tokenFromFile() });
//   const { id, replicas } = await ids.acquire();        // waits while every id is held
//   process.on('SIGTERM', () => void ids.release().finally(() => process.exit(0)));
import {
  ACQUIRE_PATH,
  type AcquireAnswer,
  type InstanceIdRefusal,
  type RefusalCode,
  RELEASE_PATH,
  type ReleaseAnswer,
  type WaitingHolder,
} from './types.js';

/** The projected ServiceAccount token of every pod (kube-api-access volume). */
export const POD_TOKEN_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export type TokenSource = string | (() => string | Promise<string>);

export interface InstanceIdClientOptions {
  /** Palisade's base URL, e.g. http://palisade.palisade-system.svc:3000 */
  url: string;
  namespace: string;
  pod: string;
  /** the pod's ServiceAccount token, or a function reading it each time (it is rotated) */
  token: TokenSource;
  /** per request, default 30 s */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A refusal from Palisade (its code and sentence), or a failure to reach it (status 0). */
export class InstanceIdError extends Error {
  constructor(
    readonly status: number,
    readonly code: RefusalCode | 'unreachable' | 'bad_answer',
    message: string,
    /** holder_not_stopped: whose ID it waits for, and why */
    readonly waiting?: WaitingHolder[],
    /** a 429's Retry-After: when asking again is any use */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'InstanceIdError';
  }

  /**
   * Worth asking again later: every id held (or held by a pod not yet known to have stopped), a
   * deadline, too many requests (429: a rate limit of Palisade's), Palisade or the cluster
   * unreachable.
   */
  get retryable(): boolean {
    return (
      this.status === 429 ||
      this.code === 'no_free_id' ||
      this.code === 'holder_not_stopped' ||
      this.code === 'deadline' ||
      this.code === 'unreachable' ||
      this.code === 'cluster_error' ||
      this.status >= 500
    );
  }
}

/** A token read from a file at each call (Node only; imported when called, not at load). */
export function tokenFromFile(path = POD_TOKEN_FILE): () => Promise<string> {
  return async () => {
    const { readFile } = await import('node:fs/promises');
    return (await readFile(path, 'utf8')).trim();
  };
}

export interface RetryOptions {
  /** give up after this long (default 5 minutes) */
  deadlineMs?: number;
  /** first wait between attempts, doubled up to maxDelayMs (default 200 ms, 5 s) */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** stop waiting: rejects with the last error */
  signal?: AbortSignal;
}

export class InstanceIdClient {
  constructor(private readonly opts: InstanceIdClientOptions) {}

  /** One attempt at the pod's instance ID (the same one again if it holds one). */
  acquireOnce(): Promise<AcquireAnswer> {
    return this.post<AcquireAnswer>(ACQUIRE_PATH);
  }

  /** The pod's instance ID, asking again (with growing, jittered waits) while that is worth it. */
  async acquire(retry: RetryOptions = {}): Promise<AcquireAnswer> {
    const deadline = Date.now() + (retry.deadlineMs ?? 300_000);
    let delay = retry.baseDelayMs ?? 200;
    for (;;) {
      try {
        return await this.acquireOnce();
      } catch (e) {
        if (!(e instanceof InstanceIdError) || !e.retryable || Date.now() + delay > deadline) throw e;
        if (retry.signal?.aborted) throw e;
        const jittered = delay / 2 + Math.random() * (delay / 2);
        const wait = Math.max(jittered, e.retryAfterMs ?? 0);
        if (Date.now() + wait > deadline) throw e;
        await sleep(wait, retry.signal);
        delay = Math.min(delay * 2, retry.maxDelayMs ?? 5_000);
      }
    }
  }

  /** Give the ID back (when the pod stops); `released` is null when it held none. */
  release(): Promise<ReleaseAnswer> {
    return this.post<ReleaseAnswer>(RELEASE_PATH);
  }

  private async post<T>(path: string): Promise<T> {
    const o = this.opts;
    const token = typeof o.token === 'function' ? await o.token() : o.token;
    const doFetch = o.fetch ?? fetch;
    let res: Response;
    try {
      res = await doFetch(new URL(path, o.url.endsWith('/') ? o.url : `${o.url}/`), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ namespace: o.namespace, pod: o.pod }),
        signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
      });
    } catch (e) {
      throw new InstanceIdError(
        0,
        'unreachable',
        `Palisade at ${o.url} did not answer: ${(e as Error).message}`,
      );
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (res.ok && body && typeof body === 'object') return body as T;
    const refusal = body as Partial<InstanceIdRefusal> | undefined;
    const retryAfterMs = retryAfter(res.headers.get('retry-after'));
    if (refusal?.code && refusal.error)
      throw new InstanceIdError(res.status, refusal.code, refusal.error, refusal.waiting, retryAfterMs);
    throw new InstanceIdError(
      res.status,
      'bad_answer',
      `Palisade answered ${res.status} ${res.statusText}: ${text.slice(0, 200) || '(no body)'}`,
      undefined,
      retryAfterMs,
    );
  }
}

/** Retry-After in seconds (the only form Palisade sends), as milliseconds; capped at 5 minutes. */
function retryAfter(header: string | null): number | undefined {
  if (!header || !/^\d+$/.test(header.trim())) return undefined;
  return Math.min(Number(header.trim()) * 1000, 300_000);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
