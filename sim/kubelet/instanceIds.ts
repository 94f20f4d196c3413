// The program in a simulated pod that uses instance IDs (seed 002): when its container's
// environment names Palisade's endpoint (PALISADE_INSTANCE_IDS_URL), it asks for its ID at
// start and gives it back when it gets SIGTERM — over HTTP, with the same client library a
// real pod uses (lib/instanceIds/client.ts) and the pod's own ServiceAccount token, bound to
// the pod as the kubelet gets it for the projected kube-api-access volume (TokenRequest with
// a boundObjectRef). The ID it was given goes into the ground truth, where the checker sees
// two running processes holding one ID.
//
// The pod's network is the node's: a partitioned or powered-off node reaches neither the API
// server nor Palisade, so its programs keep the IDs they hold and cannot give them back.
import type * as k8s from '@kubernetes/client-node';
import { InstanceIdClient, InstanceIdError } from '../../lib/instanceIds/client.js';
import { workloadKey } from '../../lib/instanceIds/types.js';
import { errorText } from '../../lib/kube/errorText.js';
import type { InfraEvent, Process } from '../infra/groundTruth.js';
import type { Infrastructure } from '../infra/infrastructure.js';

/** what the apps need from the kubelets' host */
export interface AppHost {
  readonly infra: Infrastructure;
  readonly core: k8s.CoreV1Api;
}

interface App {
  proc: Process;
  client: InstanceIdClient;
  /** ends the acquire loop: SIGTERM, or the process is gone */
  stop: AbortController;
  token?: { value: string; until: number };
}

/** tokens asked for as the kubelet asks (it rotates them at 80% of their life) */
const TOKEN_SECONDS = 3607;

export class InstanceIdApps {
  private readonly apps = new Map<number, App>();
  private readonly listener = (e: InfraEvent) => this.observe(e);
  /** acquires and releases that reached Palisade, and those that failed, for tests and logs */
  readonly counts = { acquired: 0, released: 0, failed: 0 };
  lastError: string | undefined;

  constructor(private readonly host: AppHost) {
    host.infra.truth.on('event', this.listener);
  }

  stop() {
    this.host.infra.truth.off('event', this.listener);
    for (const a of this.apps.values()) a.stop.abort();
    this.apps.clear();
  }

  /** A process started whose container environment names the endpoint. */
  started(pod: k8s.V1Pod, proc: Process, url: string) {
    if (this.apps.has(proc.id)) return;
    const namespace = pod.metadata!.namespace!;
    const name = pod.metadata!.name!;
    const app: App = {
      proc,
      stop: new AbortController(),
      client: undefined as unknown as InstanceIdClient,
    };
    app.client = new InstanceIdClient({
      url,
      namespace,
      pod: name,
      token: () => this.token(app, pod),
      fetch: this.nodeFetch(proc.node),
      timeoutMs: 15_000,
    });
    this.apps.set(proc.id, app);
    void this.acquire(app);
  }

  private async acquire(app: App) {
    try {
      const answer = await app.client.acquire({
        signal: app.stop.signal,
        baseDelayMs: 250,
        maxDelayMs: 2_000,
      });
      if (app.stop.signal.aborted) {
        // stopped while the answer was on its way: hand it straight back
        void app.client.release().catch(() => undefined);
        return;
      }
      this.counts.acquired++;
      this.host.infra.truth.holdInstanceId(app.proc.id, {
        workload: workloadKey(answer.workload),
        id: answer.id,
      });
    } catch (e) {
      if (app.stop.signal.aborted) return;
      this.counts.failed++;
      this.lastError = `${app.proc.namespace}/${app.proc.podName}: ${(e as Error).message}`;
      // a refusal that asking again will not change (the map is invalid, no workload): the
      // program runs on without an ID, as a real one would after logging it
    }
  }

  private observe(e: InfraEvent) {
    const p = e.process as Process | undefined;
    if (!p) return;
    const app = this.apps.get(p.id);
    if (!app) return;
    if (e.type === 'process-signalled' && e.signal === 'SIGTERM') {
      // graceful shutdown: stop acting as the ID, then give it back
      app.stop.abort();
      const held = p.instanceId;
      this.host.infra.truth.dropInstanceId(p.id);
      // as a real program does (lib/instanceIds/client.ts): exit once the answer is in
      if (held) this.host.infra.holdExit(p.id, this.release(app));
    } else if (e.type === 'process-stopped') {
      app.stop.abort();
      this.apps.delete(p.id);
    }
  }

  private async release(app: App) {
    try {
      await app.client.release();
      this.counts.released++;
    } catch (e) {
      // unreachable (a partition): the entry stays until its pod is known to have stopped
      // (lib/guard/stopped.ts: its kubelet confirms the end, or its node is fenced) and a full
      // map or the collector drops it
      this.counts.failed++;
      this.lastError = `${app.proc.namespace}/${app.proc.podName}: ${(e as Error).message}`;
    }
  }

  /** The pod's token, bound to it, as the kubelet requests it for the projected volume. */
  private async token(app: App, pod: k8s.V1Pod): Promise<string> {
    const now = Date.now();
    if (app.token && now < app.token.until) return app.token.value;
    if (!this.host.infra.reachable(app.proc.node))
      throw new InstanceIdError(
        0,
        'unreachable',
        `the kubelet of ${app.proc.node} cannot reach the API server`,
      );
    const m = pod.metadata!;
    try {
      const r = await this.host.core.createNamespacedServiceAccountToken({
        namespace: m.namespace!,
        name: pod.spec?.serviceAccountName || 'default',
        body: {
          spec: {
            audiences: [],
            expirationSeconds: TOKEN_SECONDS,
            boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: m.name!, uid: m.uid! },
          },
        },
      });
      app.token = { value: r.status!.token, until: now + TOKEN_SECONDS * 800 };
      return app.token.value;
    } catch (e) {
      // asked again with the next attempt, as a kubelet retries its token requests
      throw new InstanceIdError(502, 'cluster_error', `the pod's token could not be had: ${errorText(e)}`);
    }
  }

  /** fetch over the node's network: nothing leaves a partitioned or powered-off node */
  private nodeFetch(node: string): typeof fetch {
    return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      this.host.infra.networkUp(node)
        ? fetch(input, init)
        : Promise.reject(new Error(`node ${node} cannot reach the network`))) as typeof fetch;
  }
}
