// The incident tracker (issue 25): one loop per cluster on the controller runtime, run by the
// leader only. Every few seconds it observes the cluster as the incident view does (gather.ts)
// and takes the one step lib/incident/lifecycle.ts decides: declare an Incident, follow its nodes
// and workloads in its status, raise its severity, or resolve it once the cluster has stayed
// healthy; then keeps the newest resolved ones. Every write is conditional (create, or update
// with the resourceVersion read), through the term's kubeconfig, and each declaration and
// resolution is told as an Event on the Incident (the history records it from there).
import * as k8s from '@kubernetes/client-node';
import { observe, type TrackerStep, trackerStep } from '../../lib/incident/lifecycle.js';
import {
  INCIDENT_API_VERSION,
  INCIDENT_GROUP,
  INCIDENT_PLURAL,
  INCIDENT_VERSION,
  type IncidentObject,
  type IncidentSpec,
  type IncidentStatus,
  incidentObject,
  isOpen,
  KEEP_RESOLVED,
  openIncident,
} from '../../lib/incident/record.js';
import { errorText, isConflict, isNotFound } from '../../lib/kube/errorText.js';
import { singletonKey } from '../../lib/runtime/keys.js';
import { type Result, requeueAfter } from '../../lib/runtime/result.js';
import type { InformerRegistry } from '../kube/informer.js';
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { isNotLeader, type Term } from '../runtime/gate.js';
import { gather, type IncidentServices } from './gather.js';

export const TRACKER_COMPONENT = 'palisade-incident-tracker';
/** how often the tracker looks again: time alone turns a node suspect */
export const TRACK_EVERY_MS = 3_000;
/** the default quiet period before an incident nobody commands is resolved */
export const QUIET_MS = 60_000;

export type Checked = { name: string; value?: IncidentObject; error?: string };

/** The cluster's Incidents, a projection of its shared watches; an invalid one is kept as an error. */
export function incidentInformer(registry: InformerRegistry) {
  const custom = registry.kc.makeApiClient(k8s.CustomObjectsApi);
  const api = { group: INCIDENT_GROUP, version: INCIDENT_VERSION, plural: INCIDENT_PLURAL };
  return registry.informer<k8s.KubernetesObject, Checked>({
    kind: INCIDENT_PLURAL,
    path: `/apis/${INCIDENT_GROUP}/${INCIDENT_VERSION}/${INCIDENT_PLURAL}`,
    list: (p) => custom.listClusterCustomObject({ ...api, ...p }) as never,
    project: (raw) => {
      const r = incidentObject.safeParse(raw);
      const name = raw.metadata?.name ?? '';
      return r.success ? { name, value: r.data } : { name, error: r.error.issues[0]?.message ?? 'invalid' };
    },
  });
}
export type IncidentInformer = ReturnType<typeof incidentInformer>;

/**
 * Whether the cluster serves Incidents to this console: true, or why not. Without the CRD (an
 * install from before it) or the right to list them, the watch would never sync and the incident
 * view would call its data stale for ever: no watch, no tracker, no record there instead.
 */
export async function servesIncidents(kc: k8s.KubeConfig): Promise<true | string> {
  try {
    await kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({
      group: INCIDENT_GROUP,
      version: INCIDENT_VERSION,
      plural: INCIDENT_PLURAL,
      limit: 1,
    });
    return true;
  } catch (e) {
    if (isNotFound(e)) return 'the Incident CRD is not installed (kubectl apply -f deploy/crds/)';
    return errorText(e);
  }
}

/** The valid Incidents the informer holds. */
export function incidentsOf(inf: IncidentInformer): IncidentObject[] {
  return [...inf.values()].map((c) => c.value).filter((v): v is IncidentObject => !!v);
}

const KEY = 'incident' as const;
type Reason = 'watching' | 'open';

export class IncidentTracker {
  readonly loop: Loop<typeof KEY, Reason>;
  private custom: k8s.CustomObjectsApi | undefined;
  private core: k8s.CoreV1Api | undefined;
  private readonly log: Logger;

  constructor(
    private readonly o: {
      conn: ClusterConnection;
      services: IncidentServices;
      informer: IncidentInformer;
      quietMs?: number;
      logger?: Logger;
    },
  ) {
    this.log = component('incident-tracker', { cluster: o.conn.id }, o.logger);
    this.loop = new Loop<typeof KEY, Reason>({
      name: `incident-tracker:${o.conn.id}`,
      key: singletonKey(KEY),
      for: { source: o.informer, keys: () => KEY },
      begin: (term) => this.begin(term),
      reconcile: () => this.track(),
      end: () => {
        this.custom = undefined;
        this.core = undefined;
      },
      logger: o.logger,
    });
  }

  private begin(term: Term) {
    const kc = term.kc(this.o.conn.spec.kc);
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.loop.enqueue(KEY);
  }

  private async track(): Promise<Result<Reason>> {
    const all = incidentsOf(this.o.informer);
    const open = openIncident(all);
    const input = await gather(this.o.services, this.o.conn);
    const step = trackerStep(open, observe(input), {
      quietMs: this.o.quietMs ?? QUIET_MS,
      taken: new Set(all.map((i) => i.metadata.name)),
    });
    try {
      await this.take(step, open);
      await this.prune(all);
    } catch (e) {
      // a 409: the informer has not caught up with a write (ours or a person's); read again soon
      if (isNotLeader(e) || isConflict(e)) return requeueAfter(1_000, 'open');
      throw e;
    }
    return requeueAfter(TRACK_EVERY_MS, open || step.kind === 'declare' ? 'open' : 'watching');
  }

  private api() {
    if (!this.custom || !this.core) throw new Error('no term: not leading');
    return { custom: this.custom, core: this.core };
  }

  private async take(step: TrackerStep, open: IncidentObject | undefined) {
    switch (step.kind) {
      case 'none':
        return;
      case 'declare': {
        const made = await this.create(step.name, step.spec);
        await this.writeStatus(made, step.status);
        this.log.warn(
          { incident: step.name, severity: step.spec.severity },
          `incident declared: ${step.spec.title}`,
        );
        await this.event(made, 'IncidentDeclared', `${step.spec.severity}: ${step.spec.title}`, true);
        return;
      }
      case 'status':
        await this.writeStatus(open!, step.status);
        return;
      case 'escalate':
      case 'resolve': {
        const written = await this.replace(open!, step.spec);
        await this.writeStatus(written, step.status);
        const last = step.spec.updates?.at(-1)?.text ?? '';
        if (step.kind === 'resolve') this.log.info({ incident: open!.metadata.name }, `incident ${last}`);
        await this.event(written, step.kind === 'resolve' ? 'IncidentResolved' : 'IncidentEscalated', last);
      }
    }
  }

  private async create(name: string, spec: IncidentSpec): Promise<IncidentObject> {
    const body = { apiVersion: INCIDENT_API_VERSION, kind: 'Incident', metadata: { name }, spec };
    return this.parsed(
      await this.api().custom.createClusterCustomObject({
        group: INCIDENT_GROUP,
        version: INCIDENT_VERSION,
        plural: INCIDENT_PLURAL,
        body,
      }),
    );
  }

  /** PUT, conditional on the resourceVersion read */
  private async replace(i: IncidentObject, spec: IncidentSpec): Promise<IncidentObject> {
    const body = { ...i, spec };
    return this.parsed(
      await this.api().custom.replaceClusterCustomObject({
        group: INCIDENT_GROUP,
        version: INCIDENT_VERSION,
        plural: INCIDENT_PLURAL,
        name: i.metadata.name,
        body,
      }),
    );
  }

  private async writeStatus(i: IncidentObject, status: IncidentStatus) {
    await this.api().custom.replaceClusterCustomObjectStatus({
      group: INCIDENT_GROUP,
      version: INCIDENT_VERSION,
      plural: INCIDENT_PLURAL,
      name: i.metadata.name,
      body: { ...i, status },
    });
  }

  private parsed(o: unknown): IncidentObject {
    const r = incidentObject.safeParse(o);
    if (!r.success)
      throw new Error(`the API server answered an Incident Palisade cannot read: ${r.error.message}`);
    return r.data;
  }

  /** Keeps the newest KEEP_RESOLVED resolved incidents; their Events and history stay. */
  private async prune(all: IncidentObject[]) {
    const resolved = all
      .filter((i) => !isOpen(i))
      .sort((a, b) => Date.parse(b.spec.startedAt) - Date.parse(a.spec.startedAt));
    for (const old of resolved.slice(KEEP_RESOLVED)) {
      try {
        await this.api().custom.deleteClusterCustomObject({
          group: INCIDENT_GROUP,
          version: INCIDENT_VERSION,
          plural: INCIDENT_PLURAL,
          name: old.metadata.name,
          body: { preconditions: { uid: old.metadata.uid } },
        });
      } catch (e) {
        if (!isNotFound(e))
          this.log.warn({ incident: old.metadata.name, err: errorText(e) }, 'old incident not removed');
      }
    }
  }

  /** An Event on the Incident: `kubectl describe incident` and the history tell its story. */
  private async event(i: IncidentObject, reason: string, message: string, warning = false) {
    const at = Date.now();
    const body: k8s.CoreV1Event = {
      metadata: { name: `${i.metadata.name}.${at.toString(36)}`, namespace: 'default' },
      involvedObject: {
        kind: 'Incident',
        apiVersion: INCIDENT_API_VERSION,
        name: i.metadata.name,
        ...(i.metadata.uid ? { uid: i.metadata.uid } : {}),
      },
      reason,
      message: message.slice(0, 1000),
      type: warning ? 'Warning' : 'Normal',
      source: { component: TRACKER_COMPONENT },
      reportingComponent: TRACKER_COMPONENT,
      reportingInstance: TRACKER_COMPONENT,
      action: reason,
      firstTimestamp: new Date(at),
      lastTimestamp: new Date(at),
      count: 1,
    };
    try {
      await this.api().core.createNamespacedEvent({ namespace: 'default', body });
    } catch (e) {
      // the Incident itself is the record; a lost Event is told, not retried
      if (!isNotLeader(e))
        this.log.warn({ incident: i.metadata.name, reason, err: errorText(e) }, 'Event not written');
    }
  }
}
