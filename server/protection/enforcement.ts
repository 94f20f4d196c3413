// Puts the pod-deletion webhook's failurePolicy in force, on the leader only: the chart (and
// register.ts) ship it with Ignore, so an install whose replicas never start blocks nothing.
// Once this replica answers (its informers synced, its certificate served), a loop on the
// controller runtime, one key per cell cluster, probes through the API server — a server-side
// dry-run deletion of Palisade's probe pod, which only the configuration's self-probe webhook
// matches and which every replica refuses with its name — and sets the configured policy
// (lib/protection/enforcement.ts decides) with a JSON patch conditional on the resourceVersion
// read. It probes again every little while: a helm upgrade or a GitOps sync that put Ignore
// back is undone, and a state that changes is told loudly: a log line, an Event about the
// configuration, the palisade_webhook_enforced gauge, and an annotation on the configuration
// itself (palisade.dev/enforcement) that every replica's console and `kubectl get` can read.
import * as k8s from '@kubernetes/client-node';
import {
  decideEnforcement,
  type EnforcementState,
  enforcementEvent,
  enforcementMessage,
  type FailurePolicy,
  type ProbeOutcome,
  type ProbeReading,
  readProbe,
} from '../../lib/protection/enforcement.js';
import { isConflict, isNotFound, errorText } from '../../lib/kube/errorText.js';
import { type Result, requeueAfter } from '../../lib/runtime/result.js';
import { LeaseEventWriter } from '../leader/leaseEvents.js';
import { component, type Logger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { nameKey } from '../../lib/runtime/keys.js';
import { isNotLeader, type Term } from '../runtime/gate.js';
import type { ProtectionMetrics } from './metrics.js';
import { PROBE_LABEL, PROBE_POD, WEBHOOK_NAME } from './register.js';
import { RELEASE_ID, RELEASE_LABEL, TRIGGER_POD_SPEC } from './updateTrigger.js';

/** The annotation on the configuration that says what the leader last found. */
export const ENFORCEMENT_ANNOTATION = 'palisade.dev/enforcement';

export type EnforcementWait =
  | 'not-serving'
  | 'configuration-missing'
  | 'probe-pod'
  | 'conflict'
  | 'enforced'
  | 'not-enforced';

export interface EnforcementStatus {
  cell: string;
  cluster: string;
  /** pending: no probe yet (this replica cannot answer yet, or the configuration is missing) */
  state: EnforcementState | 'pending';
  /** the pod-deletion webhook's failurePolicy, as last read or written */
  policy?: FailurePolicy;
  probe?: ProbeOutcome;
  message: string;
  /** when this was found (ms) */
  at: number;
  /** the replica that found it */
  by?: string;
}

export interface EnforcementTarget {
  cell: string;
  cluster: string;
  kc: k8s.KubeConfig;
}

const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
const RESYNC_MS = { enforced: 30_000, unreachable: 5_000, ignore: 60_000, retryMin: 2_000, retryMax: 30_000 };

/** The API server's answer to a failed request: its code and message. */
function apiError(e: unknown): { code?: number; message: string } {
  if (e instanceof k8s.ApiException) {
    let body: unknown = e.body;
    if (typeof body === 'string')
      try {
        body = JSON.parse(body);
      } catch {
        return { code: e.code, message: body as string };
      }
    return { code: e.code, message: (body as { message?: string })?.message ?? errorText(e) };
  }
  return { message: errorText(e) };
}

/** The annotation's value: what the leader found, for the console and `kubectl get`. */
export function parseEnforcementAnnotation(
  text: string | undefined,
): Omit<EnforcementStatus, 'cell' | 'cluster'> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text);
    if (typeof v?.state !== 'string' || typeof v?.message !== 'string') return undefined;
    return {
      state: v.state,
      policy: v.policy,
      probe: v.probe,
      message: v.message,
      at: Date.parse(v.at),
      by: v.by,
    };
  } catch {
    return undefined;
  }
}

export class Enforcer {
  readonly loop: Loop<string, EnforcementWait>;
  private readonly status = new Map<string, EnforcementStatus>();
  private readonly failures = new Map<string, number>();
  private readonly events = new Map<string, LeaseEventWriter>();
  private readonly log: Logger;
  private term: Term | undefined;

  constructor(
    private readonly o: {
      targets: EnforcementTarget[];
      /** where the probe pod lives on each cell's cluster */
      probeNamespace: string;
      /** the policy to enforce once a replica answered (protection.webhook.failurePolicy) */
      configured: FailurePolicy;
      /** why this replica cannot answer yet (empty: it can) */
      notReady: () => string[];
      /** waits for the caches the webhook judges from */
      synced: () => Promise<unknown>;
      metrics: ProtectionMetrics;
      /** Palisade's namespace: where the Events go */
      eventsNamespace: string;
      identity: string;
      logger?: Logger;
    },
  ) {
    this.log = component('enforcement', {}, o.logger);
    for (const t of o.targets) this.events.set(t.cluster, new LeaseEventWriter(t.kc, this.log));
    // keys: the cell clusters' ids
    this.loop = new Loop<string, EnforcementWait>({
      name: 'webhook-enforcement',
      key: nameKey,
      begin: (term, loop) => this.begin(term, loop),
      reconcile: (cluster) => this.reconcile(cluster),
      end: () => this.end(),
      backoff: { baseMs: 2_000, maxMs: 30_000 },
      logger: o.logger,
    });
  }

  /** What this leader found, per cell cluster (empty on a replica that does not lead). */
  current(): EnforcementStatus[] {
    return [...this.status.values()];
  }

  /** Look again now (nothing when this replica does not lead). */
  poke() {
    for (const t of this.o.targets) this.loop.enqueue(t.cluster);
  }

  private async begin(term: Term, loop: Loop<string, EnforcementWait>) {
    this.term = term;
    await this.o.synced();
    for (const t of this.o.targets) loop.enqueue(t.cluster);
  }

  private end() {
    this.term = undefined;
    this.status.clear();
    this.failures.clear();
    // only the leader says: a follower's gauge would contradict it
    this.o.metrics.enforced.reset();
  }

  private async reconcile(key: string): Promise<Result<EnforcementWait>> {
    const term = this.term;
    const t = this.o.targets.find((x) => x.cluster === key);
    if (!term || !t) throw new Error('no term: not leading');
    const why = this.o.notReady();
    if (why.length) {
      this.note(t, { state: 'pending', message: `this replica cannot answer yet: ${why.join('; ')}` });
      return requeueAfter(1_000, 'not-serving');
    }
    const kc = term.kc(t.kc);
    const api = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    const cfg = await api.readValidatingWebhookConfiguration({ name: WEBHOOK_NAME }).catch((e) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    const index = cfg?.webhooks?.findIndex((w) => w.name === WEBHOOK_NAME) ?? -1;
    if (!cfg || index < 0) {
      this.note(t, {
        state: 'pending',
        message: `ValidatingWebhookConfiguration ${WEBHOOK_NAME} (webhook ${WEBHOOK_NAME}) not found: nothing to enforce until it exists`,
      });
      return requeueAfter(10_000, 'configuration-missing');
    }
    const reading = await this.probe(kc.makeApiClient(k8s.CoreV1Api));
    if (!reading) return requeueAfter(0, 'probe-pod');
    this.o.metrics.probes.inc({ cell: t.cell, outcome: reading.outcome });
    // an unset failurePolicy is the API's default, Fail
    const current = (cfg.webhooks![index].failurePolicy ?? 'Fail') as FailurePolicy;
    const decision = decideEnforcement(this.o.configured, current, reading.outcome);
    const message = enforcementMessage(decision, reading);
    const found: EnforcementStatus = {
      cell: t.cell,
      cluster: t.cluster,
      state: decision.state,
      policy: decision.policy,
      probe: reading.outcome,
      message,
      at: Date.now(),
      by: this.o.identity,
    };
    try {
      await this.write(api, cfg, index, current, found);
    } catch (e) {
      if (isConflict(e)) return requeueAfter(0, 'conflict');
      throw e;
    }
    this.note(t, found, cfg.metadata?.uid);
    this.o.metrics.enforced.set(
      { cell: t.cell },
      reading.outcome === 'reached' && decision.policy === this.o.configured ? 1 : 0,
    );
    if (decision.state === 'enforced') {
      this.failures.delete(key);
      return requeueAfter(RESYNC_MS.enforced, 'enforced');
    }
    if (decision.state === 'ignore-configured') return requeueAfter(RESYNC_MS.ignore, 'enforced');
    if (decision.state === 'enforced-unreachable') return requeueAfter(RESYNC_MS.unreachable, 'not-enforced');
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return requeueAfter(Math.min(RESYNC_MS.retryMax, RESYNC_MS.retryMin * 2 ** (n - 1)), 'not-enforced');
  }

  /**
   * The self-probe: a dry-run deletion of the probe pod through the API server. Undefined when
   * the probe pod had to be made first (probe again).
   */
  private async probe(core: k8s.CoreV1Api): Promise<ProbeReading | undefined> {
    const namespace = this.o.probeNamespace;
    try {
      await core.deleteNamespacedPod({ namespace, name: PROBE_POD, body: { dryRun: ['All'] } });
      return readProbe({ admitted: true });
    } catch (e) {
      if (isNotLeader(e)) throw e;
      const err = apiError(e);
      if (err.code === 404 && !err.message.includes('failed calling webhook')) {
        try {
          await this.makeProbePod(core);
        } catch (made) {
          if (isNotLeader(made)) throw made;
          // no probe, no enforcement: said like any other failed probe
          return {
            outcome: 'error',
            detail: `the probe pod ${namespace}/${PROBE_POD} cannot be created: ${apiError(made).message}`,
          };
        }
        return undefined;
      }
      return readProbe({ admitted: false, ...err });
    }
  }

  private async makeProbePod(core: k8s.CoreV1Api) {
    try {
      await core.createNamespacedPod({
        namespace: this.o.probeNamespace,
        body: {
          metadata: {
            name: PROBE_POD,
            // Palisade's own (the pod-deletion webhook leaves it out); the self-probe selects it
            labels: { [PROBE_LABEL]: 'true', [RELEASE_LABEL]: RELEASE_ID },
          },
          spec: TRIGGER_POD_SPEC,
        },
      });
      this.log.info({ pod: `${this.o.probeNamespace}/${PROBE_POD}` }, 'probe pod created (never scheduled)');
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }

  /** The policy decided, and the annotation when what it says changed: one patch, conditional. */
  private async write(
    api: k8s.AdmissionregistrationV1Api,
    cfg: k8s.V1ValidatingWebhookConfiguration,
    index: number,
    current: FailurePolicy,
    found: EnforcementStatus,
  ) {
    const annotations = cfg.metadata?.annotations;
    const before = parseEnforcementAnnotation(annotations?.[ENFORCEMENT_ANNOTATION]);
    const text = JSON.stringify({
      state: found.state,
      policy: found.policy,
      probe: found.probe,
      message: found.message,
      at: new Date(found.at).toISOString(),
      by: found.by,
    });
    const ops: object[] = [];
    if (found.policy !== current)
      ops.push({ op: 'replace', path: `/webhooks/${index}/failurePolicy`, value: found.policy });
    if (before?.state !== found.state || before?.probe !== found.probe || before?.policy !== found.policy)
      ops.push(
        annotations
          ? {
              op: 'add',
              path: `/metadata/annotations/${ENFORCEMENT_ANNOTATION.replace('/', '~1')}`,
              value: text,
            }
          : { op: 'add', path: '/metadata/annotations', value: { [ENFORCEMENT_ANNOTATION]: text } },
      );
    if (!ops.length) return;
    await api.patchValidatingWebhookConfiguration(
      {
        name: WEBHOOK_NAME,
        // the precondition: a write in between makes this a 409
        body: [
          { op: 'replace', path: '/metadata/resourceVersion', value: cfg.metadata?.resourceVersion },
          ...ops,
        ],
      },
      jsonPatch,
    );
    if (found.policy !== current)
      this.log.info(
        { cell: found.cell, from: current, to: found.policy, probe: found.probe },
        `failurePolicy of ${WEBHOOK_NAME} set to ${found.policy}`,
      );
  }

  /** Keep what was found; tell a change of state loudly (log line and Event). */
  private note(
    t: EnforcementTarget,
    s: Omit<EnforcementStatus, 'cell' | 'cluster' | 'at'> & { at?: number },
    uid?: string,
  ) {
    const next: EnforcementStatus = { cell: t.cell, cluster: t.cluster, at: Date.now(), ...s };
    const prev = this.status.get(t.cluster);
    this.status.set(t.cluster, next);
    if (prev?.state === next.state && prev?.probe === next.probe) return;
    if (next.state === 'pending') {
      this.log.info({ cell: t.cell }, next.message);
      return;
    }
    const fields = { cell: t.cell, state: next.state, policy: next.policy, probe: next.probe };
    if (next.state === 'enforced') this.log.info(fields, next.message);
    else this.log.warn(fields, next.message);
    this.events.get(t.cluster)?.record(
      enforcementEvent({
        configuration: { name: WEBHOOK_NAME, uid },
        namespace: this.o.eventsNamespace,
        cell: t.cell,
        state: next.state,
        message: next.message,
        by: this.o.identity,
        at: new Date(next.at),
      }),
    );
  }
}
