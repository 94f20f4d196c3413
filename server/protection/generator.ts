// The generator, on the core cluster: a PodProtector for every selected Deployment and
// StatefulSet (deployment-<name>, statefulset-<name>), floor = replicas - maxUnavailable.
// A finalizer on both sides: the protector goes only when its workload is explicitly
// deleted (deletionTimestamp) or deselected, and survives a workload that merely vanishes.
// It also applies podseidon.kubewharf.io/remove-cell-once. Writes carry resourceVersion.
// Its workloads are projections of the core cluster's shared Deployment and StatefulSet
// watches (the console's own); it reconciles on the controller runtime, only while this console
// leads the core cluster's controller Lease, writing through the term's kubeconfig.
import * as k8s from '@kubernetes/client-node';
import { matchesRequirements, parseLabelSelector } from '../../lib/kube/labelSelector.js';
import {
  cellsToRemove,
  desiredProtector,
  protectorName,
  specMatches,
  type WorkloadFacts,
  type WorkloadKind,
} from '../../lib/protection/generator.js';
import { cellsOf, removeCells, statusOf } from '../../lib/protection/status.js';
import { ANNOTATIONS, GENERATOR_FINALIZER, GROUP, PLURAL, VERSION } from '../../lib/protection/types.js';
import type { InformerRegistry, SupervisedInformer } from '../kube/informer.js';
import type { Logger } from '../log.js';
import { Loop, type Watch } from '../runtime/loop.js';
import { type WorkloadKey as Key, workloadKey } from '../../lib/runtime/keys.js';
import type { Term } from '../runtime/gate.js';
import { done, type Result, requeueAfter } from '../../lib/runtime/result.js';
import type { ProtectionMetrics } from './metrics.js';
import type { ProtectorChange, ProtectorStore } from './protectors.js';
import { clientNodeStatusApi, writeStatus } from './statusWrite.js';
import { codeOf, isConflict, isNotFound } from '../../lib/kube/errorText.js';

interface Workload {
  facts: WorkloadFacts;
  labels: Record<string, string>;
  finalizers: string[];
  terminating: boolean;
  resourceVersion: string;
}

function workload(kind: WorkloadKind, o: k8s.V1Deployment | k8s.V1StatefulSet): Workload {
  const spec = o.spec as any;
  return {
    facts: {
      kind,
      namespace: o.metadata?.namespace ?? '',
      name: o.metadata?.name ?? '',
      uid: o.metadata?.uid ?? '',
      replicas: spec?.replicas ?? 1,
      minReadySeconds: spec?.minReadySeconds ?? 0,
      selector: spec?.selector ?? {},
      strategy: kind === 'Deployment' ? spec?.strategy : spec?.updateStrategy,
    },
    labels: o.metadata?.labels ?? {},
    finalizers: o.metadata?.finalizers ?? [],
    terminating: !!o.metadata?.deletionTimestamp,
    resourceVersion: o.metadata?.resourceVersion ?? '',
  };
}

/** the generator's key: one workload, kind first */
type WorkloadKey = Key<WorkloadKind>;
const WORKLOAD_KEY = workloadKey<WorkloadKind>();
const sourceOf = ({ kind, namespace, name }: WorkloadKey): WorkloadKey => ({ kind, namespace, name });

/** why the generator looks at a workload again later */
export type GeneratorWait = 'conflict';

export class Generator {
  private readonly informers: Record<WorkloadKind, SupervisedInformer<any, Workload>>;
  /** its loop on the controller runtime (protection adds it to the core cluster's manager) */
  readonly loop: Loop<WorkloadKey, GeneratorWait>;
  private custom: k8s.CustomObjectsApi | undefined;
  private objects: k8s.KubernetesObjectApi | undefined;
  /** protector key -> the workload it was generated for */
  private readonly sources = new Map<string, Pick<WorkloadFacts, 'kind' | 'namespace' | 'name'>>();
  private readonly selector;

  constructor(
    private readonly core: InformerRegistry,
    private readonly store: ProtectorStore,
    private readonly metrics: ProtectionMetrics,
    workloadSelector: string,
    /** where its lines go (component 'generator'); context such as { cluster } on it */
    logger?: Logger,
  ) {
    this.selector = parseLabelSelector(workloadSelector);
    const apps = core.kc.makeApiClient(k8s.AppsV1Api);
    this.informers = {
      Deployment: core.informer({
        kind: 'deployments',
        path: '/apis/apps/v1/deployments',
        list: (p) => apps.listDeploymentForAllNamespaces(p),
        project: (o: k8s.V1Deployment) => workload('Deployment', o),
      }),
      StatefulSet: core.informer({
        kind: 'statefulsets',
        path: '/apis/apps/v1/statefulsets',
        list: (p) => apps.listStatefulSetForAllNamespaces(p),
        project: (o: k8s.V1StatefulSet) => workload('StatefulSet', o),
      }),
    };
    const watchWorkloads = (inf: SupervisedInformer<any, Workload>): Watch<WorkloadKey, Workload> => ({
      source: inf,
      keys: (w, change) => {
        // vanished without an explicit delete: the protector stays
        if (change === 'delete') {
          const ppr = this.store.get(`${w.facts.namespace}/${protectorName(w.facts.kind, w.facts.name)}`);
          if (!w.terminating && ppr) this.metrics.generator.inc({ action: 'dangling' });
          return undefined;
        }
        return sourceOf(w.facts);
      },
    });
    this.loop = new Loop<WorkloadKey, GeneratorWait>({
      name: 'generator',
      key: WORKLOAD_KEY,
      for: [watchWorkloads(this.informers.Deployment), watchWorkloads(this.informers.StatefulSet)],
      owns: [{ source: store.changes, keys: (c) => this.ownerOf(c) }],
      begin: (term, loop) => this.begin(term, loop),
      reconcile: (key) => this.reconcileKey(key),
      end: () => {
        this.custom = undefined;
        this.objects = undefined;
      },
      backoff: { baseMs: 2_000, maxMs: 60_000 },
      logger,
    });
  }

  /**
   * The workload a protector was generated for (labels source-kind, source-name). A removal
   * carries no copy: remember whose protector it was, so a protector removed by hand
   * (finalizer stripped) is recreated while its workload wants one.
   */
  private ownerOf({ key, entry }: ProtectorChange): WorkloadKey | undefined {
    const labels = entry?.protector.metadata.labels;
    const kind = labels?.['podseidon.kubewharf.io/source-kind'] as WorkloadKind | undefined;
    const name = labels?.['podseidon.kubewharf.io/source-name'];
    const source =
      entry && kind && name && this.informers[kind]
        ? { kind, namespace: entry.protector.metadata.namespace, name }
        : undefined;
    const target = entry ? source : this.sources.get(key);
    if (entry && source) this.sources.set(key, source);
    else this.sources.delete(key);
    return target;
  }

  async start() {
    for (const inf of Object.values(this.informers)) inf.start();
    await Promise.all(Object.values(this.informers).map((i) => i.synced()));
  }

  async stop() {
    this.loop.controller.halt();
    await Promise.all(Object.values(this.informers).map((i) => i.stop()));
  }

  /** A term begins: write through its kubeconfig, look at every workload. */
  private async begin(term: Term, loop: Loop<WorkloadKey, GeneratorWait>) {
    const kc = term.kc(this.core.kc);
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    await Promise.all([...Object.values(this.informers).map((i) => i.synced()), this.store.whenSynced()]);
    for (const inf of Object.values(this.informers))
      for (const w of inf.values()) loop.enqueue(sourceOf(w.facts));
  }

  /** a 409 (a stale copy): look again shortly, once the informer has the fresh one */
  private async reconcileKey(key: WorkloadKey): Promise<Result<GeneratorWait>> {
    try {
      await this.reconcile(key);
      return done;
    } catch (e) {
      if (isConflict(e)) return requeueAfter(50, 'conflict');
      throw e;
    }
  }

  private clients() {
    if (!this.custom || !this.objects) throw new Error('no term: not leading');
    return { custom: this.custom, objects: this.objects };
  }

  private async reconcile({ kind, namespace, name }: WorkloadKey) {
    const w = this.informers[kind].get(`${namespace}/${name}`);
    if (!w) return; // vanished: nothing to do, the protector stays (dangling)
    const pprName = protectorName(kind, name);
    const ppr = this.store.get(`${namespace}/${pprName}`);
    const wanted = !w.terminating && matchesRequirements(this.selector, w.labels);
    if (!wanted) {
      if (ppr && !ppr.dangling) await this.retire(namespace, pprName);
      if (w.finalizers.includes(GENERATOR_FINALIZER)) await this.setWorkloadFinalizer(w, false);
      return;
    }
    if (!w.finalizers.includes(GENERATOR_FINALIZER)) await this.setWorkloadFinalizer(w, true);
    if (!ppr || ppr.dangling) {
      await this.clients()
        .custom.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace,
          body: desiredProtector(w.facts),
        })
        .catch((e) => {
          if (!isConflict(e)) throw e;
        });
      this.metrics.generator.inc({ action: 'create' });
      return;
    }
    const p = ppr.protector;
    if (!specMatches(p.spec, w.facts)) {
      const want = desiredProtector(w.facts);
      await this.clients().custom.replaceNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name: pprName,
        body: { ...p, spec: { ...p.spec, ...want.spec } },
      });
      this.metrics.generator.inc({ action: 'sync' });
    }
    const remove = cellsToRemove(p.metadata.annotations?.[ANNOTATIONS.removeCellOnce]);
    if (remove.length) await this.removeCells(namespace, pprName, remove);
  }

  private async removeCells(namespace: string, name: string, ids: string[]) {
    const p = this.store.get(`${namespace}/${name}`)!.protector;
    const cells = cellsOf(p);
    const kept = removeCells(cells, ids);
    if (kept.length !== cells.length) {
      const body = { ...p, status: { ...(p.status ?? {}), ...statusOf(kept, Date.now()) } };
      const r = await writeStatus(
        clientNodeStatusApi(this.clients().custom),
        this.metrics,
        'generator',
        body,
      );
      // a stale copy: the queue retries this workload once the informer has the fresh one
      if (r.outcome === 'conflict') throw Object.assign(new Error('conflict'), { code: 409 });
    }
    await this.clients()
      .custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace,
          name,
          body: [
            { op: 'remove', path: `/metadata/annotations/${ANNOTATIONS.removeCellOnce.replace('/', '~1')}` },
          ],
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      )
      .catch((e) => {
        if (!isNotFound(e) && codeOf(e) !== 422) throw e;
      });
    this.metrics.generator.inc({ action: 'remove-cells' });
  }

  /**
   * Remove our finalizer from the protector, then delete it. A delete carries no fieldManager
   * for the epoch check, so the finalizer's removal (an update, fenced) goes first and the delete
   * is conditional on the resourceVersion it left: a stale leader's delete never lands on its own.
   */
  private async retire(namespace: string, name: string) {
    const p = this.store.get(`${namespace}/${name}`)!.protector;
    const finalizers = (p.metadata.finalizers ?? []).filter((f) => f !== GENERATOR_FINALIZER);
    let resourceVersion = p.metadata.resourceVersion;
    if (finalizers.length !== (p.metadata.finalizers ?? []).length) {
      const updated = (await this.clients().custom.replaceNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name,
        body: { ...p, metadata: { ...p.metadata, finalizers } },
      })) as { metadata?: { resourceVersion?: string } };
      resourceVersion = updated.metadata?.resourceVersion ?? resourceVersion;
    }
    if (!p.metadata.deletionTimestamp)
      await this.clients()
        .custom.deleteNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace,
          name,
          body: resourceVersion ? { preconditions: { resourceVersion } } : undefined,
        })
        .catch((e) => {
          if (!isNotFound(e)) throw e;
        });
    this.metrics.generator.inc({ action: 'delete' });
  }

  private async setWorkloadFinalizer(w: Workload, present: boolean) {
    const finalizers = present
      ? [...w.finalizers, GENERATOR_FINALIZER]
      : w.finalizers.filter((f) => f !== GENERATOR_FINALIZER);
    // a merge patch that carries the resourceVersion: optimistic, 409 on a stale view
    await this.clients().objects.patch(
      {
        apiVersion: 'apps/v1',
        kind: w.facts.kind,
        metadata: {
          name: w.facts.name,
          namespace: w.facts.namespace,
          resourceVersion: w.resourceVersion,
          finalizers,
        },
      } as never,
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
  }
}
