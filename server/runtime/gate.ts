// A leader's term, and the kubeconfig its loops write through. Every request a loop makes goes
// through a kubeconfig of its term: once the term ends (the Lease was lost or not renewed in
// time, or the console is stopping) that kubeconfig refuses to send anything, so a reconcile
// still running in the old term — an agent that answered late, a retry loop — cannot write
// after its leader stepped down: no lame-duck work. The check is at the moment each request is
// signed (client-node asks the kubeconfig for credentials on every call, typed clients, the
// generic object client, watches and the keep-alive JSON client alike).
import * as k8s from '@kubernetes/client-node';
import { epochFieldManager } from '../../lib/leader/epoch.js';

/** Thrown instead of sending a request when the term that made the client has ended. */
export class NotLeaderError extends Error {
  readonly notLeader = true;
  constructor(what: string) {
    super(`not sent: ${what} (this console no longer leads)`);
  }
}

export const isNotLeader = (e: unknown) => (e as { notLeader?: boolean } | null)?.notLeader === true;

export class Term {
  private readonly abort = new AbortController();
  private readonly gated = new WeakMap<k8s.KubeConfig, k8s.KubeConfig>();

  constructor(
    /** the Lease's leaseTransitions when this term began */
    readonly epoch: number,
    /** the Lease, e.g. kube-system/palisade-controller */
    readonly lease: string,
    /** read the Lease live: still this process's (before an irreversible step) */
    private readonly confirmLease: () => Promise<boolean>,
  ) {}

  get active() {
    return !this.abort.signal.aborted;
  }

  /** aborted when the term ends */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  end() {
    this.abort.abort();
  }

  /** Still leading, the Lease read live says so, and this term has not ended. */
  async confirm(): Promise<boolean> {
    return this.active && (await this.confirmLease()) && this.active;
  }

  /** The fieldManager every write of this term carries: its epoch, for Palisade's webhook to check. */
  get fieldManager(): string {
    return epochFieldManager(this.epoch);
  }

  /**
   * A kubeconfig like `base` whose requests fail with NotLeaderError once this term has ended,
   * and whose writes through client-node's typed and generic clients carry the term's epoch.
   */
  kc(base: k8s.KubeConfig): k8s.KubeConfig {
    let kc = this.gated.get(base);
    if (!kc) {
      kc = gatedKubeConfig(
        base,
        () => {
          if (!this.active)
            throw new NotLeaderError(`the term of epoch ${this.epoch} on ${this.lease} ended`);
        },
        this.fieldManager,
      );
      this.gated.set(base, kc);
    }
    return kc;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/**
 * `base`'s clusters, users and contexts, checking `gate` before signing any request; with a
 * fieldManager, every create, update and patch sent through a client-node API client carries it
 * (it reaches admission webhooks as request.options.fieldManager).
 */
export function gatedKubeConfig(
  base: k8s.KubeConfig,
  gate: () => void,
  fieldManager?: string,
): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: base.clusters,
    users: base.users,
    contexts: base.contexts,
    currentContext: base.currentContext,
  });
  const security = kc.applySecurityAuthentication.bind(kc);
  const fetchOptions = kc.applyToFetchOptions.bind(kc);
  const httpsOptions = kc.applyToHTTPSOptions.bind(kc);
  kc.applySecurityAuthentication = async (context) => {
    gate();
    if (fieldManager && WRITES.has(String(context.getHttpMethod()).toUpperCase())) {
      const url = new URL(context.getUrl());
      url.searchParams.set('fieldManager', fieldManager);
      context.setUrl(url.toString());
    }
    return security(context);
  };
  kc.applyToFetchOptions = async (opts) => {
    gate();
    return fetchOptions(opts);
  };
  kc.applyToHTTPSOptions = async (opts) => {
    gate();
    return httpsOptions(opts);
  };
  return kc;
}
