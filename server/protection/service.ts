// Deletion protection in the console's process: the protector store on the core cluster,
// the webhook listener, one aggregator and update trigger per cell, the generator, and
// (by default on the embedded cluster) each cell's ValidatingWebhookConfiguration.
//
// Every replica serves the webhook (its admission buckets are written by whichever replica
// admitted the deletion: not leader work). The loops — every cell's aggregator and update
// trigger, and the generator — run on the controller runtime of the *core* cluster only: one
// Lease, one leader for all cells. Each aggregator writes the PodProtector status on the core
// cluster, so the Lease that decides who writes there lives there too, and its epoch is the one
// a write to the core's objects is checked against; one Lease per cell would let two consoles
// (each leading a different cell) write the same protectors' status, and a cell whose API
// server is unreachable would hold up nothing it could not already hold up.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { protectionSchema, serviceNames, webhookCertificatesOf } from '../config/schema.js';
import type { ClusterSpec } from '../kube/connection.js';
import { InformerRegistry } from '../kube/informer.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import { fromRoot } from '../root.js';
import { Admission } from './admission.js';
import type { LiveCounts } from '../../lib/protection/batch.js';
import type { Counts } from '../../lib/protection/counts.js';
import type { PodProtector } from '../../lib/protection/types.js';
import type { Aggregator } from './aggregator.js';
import { resolveClientTrust } from '../webhook/clientAuth.js';
import { DecisionLog } from './decisions.js';
import type { Generator } from './generator.js';
import { protectionMetrics } from './metrics.js';
import { ProtectorStore } from './protectors.js';
import { Enforcer, type EnforcementStatus } from './enforcement.js';
import type { NamespaceLabels } from './namespaceLabels.js';
import { enforcementOnConfigurations } from './enforcementView.js';
import { webhookRegistration } from './registration.js';
import { ownEndpoints } from './drain.js';
import { protectionLoops } from './loops.js';
import { caBundleTargets, protectionTopology } from './topology.js';
import { type LoopEntry, loopsOn } from '../loops.js';
import { startProtectionWebhook } from './webhookHandlers.js';
import type { UpdateTrigger } from './updateTrigger.js';
import { handleReview, type ReviewResult } from './review.js';
import { type WebhookServer, webhookNames } from '../webhook/listener.js';
import { certificateMetrics } from './certs/metrics.js';
import { initialServingPair, notReadyOf, servingCertificates } from './serving.js';
import type { CertificateController } from './certs/controller.js';
import { isConflict, isNotFound } from '../../lib/kube/errorText.js';

export interface CellInfo {
  id: string;
  cluster: string;
  context: string;
  registered: boolean;
}

export interface ProtectionService {
  core: ClusterSpec;
  cells: CellInfo[];
  store: ProtectorStore;
  decisions: DecisionLog;
  aggregators: Aggregator[];
  generator?: Generator;
  triggers: UpdateTrigger[];
  /** the controller runtime the loops run on (the console's, or one of its own) */
  runtime: ControllerRuntime;
  /** every loop of protection, for server/loops.ts to add (nothing here adds them) */
  loops: LoopEntry[];
  /**
   * Register each cell's webhooks that this process registers, once its loops are added (a
   * self-managed certificate comes from the leader's loop), and log that protection is on.
   */
  registerWebhooks(): Promise<void>;
  webhook: WebhookServer;
  metrics: ReturnType<typeof protectionMetrics>;
  /** where the serving certificate comes from: 'process' (made at start) or the Secret's mode */
  certificates: { mode: string; secret?: string; controller?: CertificateController };
  /** what keeps the webhook from being ready (empty: it listens with a certificate) */
  notReady(): string[];
  /** on the leader: each cell's webhook that is not enforced, in a sentence (readiness detail) */
  warnings(): string[];
  /** what the leader found of each cell's pod-deletion webhook (on a follower: read from the configuration) */
  enforcement(): Promise<EnforcementStatus[]>;
  /** the loop that puts the webhook's failurePolicy in force (leader only) */
  enforcer: Enforcer;
  /** the loop that keeps protected namespaces labelled (leader only) */
  namespaceLabels: NamespaceLabels;
  /**
   * SIGTERM: keep answering, every answer closing its connection, until this replica's
   * endpoints are gone (or protection.webhook.drainTimeout passed), then stop listening once
   * the open connections are done. Nothing to drain for a webhook no one else shares.
   */
  drain(): Promise<void>;
  /** judge one AdmissionReview text for a cell as the listener does, past its caller check */
  review(text: string, cellId: string, timeoutMs?: number): Promise<ReviewResult>;
  stop(): Promise<void>;
}

const CRD_DIR = fromRoot('deploy', 'crds');

/** Install the PodProtector CRD on the core cluster when it is missing (same file as kubectl apply). */
async function ensureCrd(kc: k8s.KubeConfig, log: Logger) {
  const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
  // the generic client sends the YAML as it is: the typed one would drop x-kubernetes-* and defaults
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const files = (await readdir(CRD_DIR)).filter((f) => f.startsWith('podseidon') && f.endsWith('.yaml'));
  for (const f of files) {
    const crd = parseYaml(await readFile(join(CRD_DIR, f), 'utf8')) as k8s.V1CustomResourceDefinition;
    try {
      await api.readCustomResourceDefinition({ name: crd.metadata!.name! });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await objects.create(crd as k8s.KubernetesObject).catch((err) => {
        if (!isConflict(err)) throw err;
      });
      log.info({ crd: crd.metadata!.name }, 'installed the CRD');
    }
  }
}

/** protection's part of palisade.yaml, as written (defaults not yet applied) */
export type ProtectionConfigInput = z.input<typeof protectionSchema>;

/** The listener's paths: /<path>/<cellID> */

/** how long a follower's reading of the leader's enforcement annotation is kept */
const FOLLOWER_VIEW_MS = 5_000;

/** a stop() with no drain() before it: the open connections get this long to finish */
const CLOSE_MS = 2_000;

export async function startProtection(opts: {
  config?: ProtectionConfigInput;
  clusters: ClusterSpec[];
  /** where protection's parts log, each as its component (the root logger by default) */
  logger?: Logger;
  /**
   * the console's controller runtime: the loops join its core-cluster manager (one Lease, one
   * runtime per process; a test without a console uses test/standalone.ts)
   */
  runtime: ControllerRuntime;
  /** a cluster's shared watches (the console's connection's; default: its own per cluster) */
  informers?: (c: ClusterSpec) => InformerRegistry | undefined;
  /** palisade.yaml fencing.credentialsNamespaces, resolved: what the FencePolicy webhook allows */
  credentialsNamespaces?: readonly string[];
}): Promise<ProtectionService> {
  const root = opts.logger ?? rootLogger;
  const log = component('protection', {}, root);
  const cfg = protectionSchema.parse(opts.config ?? {});
  const { core, cells: cellSpecs } = protectionTopology(cfg, opts.clusters);
  // who may call the webhook, settled before anything is installed or started
  const clientAuth = resolveClientTrust(
    cfg.webhook.clientAuth,
    cellSpecs.map((c) => ({ id: c.id, context: c.cluster.context, kc: c.cluster.kc })),
  );
  const onCore = root.child({ cluster: core.id });
  await ensureCrd(core.kc, component('protection', {}, onCore));

  const { runtime } = opts;
  const { registryOf, stopOwn } = registries(opts.informers, root);

  const metrics = protectionMetrics();
  const decisions = new DecisionLog();
  const store = new ProtectorStore(registryOf(core), onCore);
  store.onChange((key, e) => e && decisions.observe(key, e.protector));
  store.start();
  // each cell's aggregator, once made: its pod index bounds a stale aggregation (lib/protection/batch.ts)
  const indexes = new Map<string, Aggregator>();
  const admission = new Admission(core.kc, store, metrics, decisions, undefined, (p) =>
    liveCountsOf(indexes, p),
  );
  // replicas behind one url or Service serve one certificate from a Secret (certs/)
  const sharedUrl = cfg.webhook.url ? new URL(cfg.webhook.url).hostname.replace(/^\[|\]$/g, '') : undefined;
  const service = cfg.webhook.service;
  const names = webhookNames(cfg.webhook.host, [...(sharedUrl ? [sharedUrl] : []), ...serviceNames(service)]);
  const certs = webhookCertificatesOf(cfg.webhook);
  const certLog = component('certificates', {}, root);
  const certMetrics = certificateMetrics(metrics.registry);
  const initial = (await initialServingPair(certs, core, names, certLog)) ?? null;
  // one listener, a handler per webhook: deletions, fence approvals, FencePolicy writes, epochs
  const { webhook, reviewDeps } = await startProtectionWebhook({
    cells: cellSpecs,
    admission,
    metrics,
    runtime,
    credentialsNamespaces: opts.credentialsNamespaces,
    port: cfg.webhook.port,
    host: cfg.webhook.host,
    names,
    serving: certs.mode === 'process' ? undefined : initial,
    clientAuth,
    logger: root,
  });
  const base = cfg.webhook.url ?? webhook.url;

  // the loops: namespace labels (each cell's cluster once), an aggregator and trigger per cell, the generator
  const { cellClusters, namespaceLabels, aggregators, triggers, generator } = protectionLoops({
    cfg,
    core,
    cells: cellSpecs,
    registryOf,
    store,
    metrics,
    root,
  });
  for (const a of aggregators) indexes.set(a.cellId, a);

  await store.whenSynced();
  await Promise.all([...aggregators.map((a) => a.start()), generator?.start(), namespaceLabels.start()]);
  // SIGTERM in a pod behind the Service: the drain ends once the pod left its EndpointSlices
  const endpoints =
    service && process.env.POD_NAME
      ? ownEndpoints(registryOf(core), { ...service, pod: process.env.POD_NAME })
      : undefined;
  // the loops run while this console leads the core cluster's controller Lease (server/loops.ts
  // adds them); every replica asks the core's manager whether it leads
  const manager = runtime.manager(core);
  // self-managed: the configurations whose caBundle the leader keeps equal to ca.crt, per cluster
  const { registers, targets } = caBundleTargets(cfg, certs, cellSpecs);
  // the certificate's loop (leader only) and every replica's reload, before anything waits on them
  const { controller: certController, watch } = servingCertificates({
    certs,
    core,
    registry: registryOf(core),
    names,
    targets,
    webhook,
    metrics: certMetrics,
    logger: onCore,
  });
  const cells: CellInfo[] = cellSpecs.map((c) => ({
    id: c.id,
    cluster: c.cluster.id,
    context: c.cluster.context,
    registered: registers(c),
  }));
  const notReady = notReadyOf(webhook, certs, watch);
  // once registered: the leader probes through the API server and puts the policy in force
  const enforcer = new Enforcer({
    targets: cellClusters.map((c) => ({ cell: c.id, cluster: c.cluster.id, kc: c.cluster.kc })),
    probeNamespace: cfg.aggregator.updateTrigger.namespace,
    configured: cfg.webhook.failurePolicy,
    notReady,
    synced: () => store.whenSynced(),
    metrics,
    eventsNamespace: runtime.election.namespace,
    identity: runtime.identity,
    logger: onCore,
  });
  const loops = loopsOn('protection', core, [
    namespaceLabels.loop,
    ...aggregators.map((a) => a.loop),
    ...triggers.map((t) => t.loop),
    generator?.loop,
    certController?.loop,
    enforcer.loop,
  ]);
  if (cfg.webhook.failurePolicy === 'Ignore')
    log.warn(
      { setting: 'protection.webhook.failurePolicy: Ignore' },
      'protected pods can be deleted whenever no replica answers the API server',
    );
  const registration = webhookRegistration({ base, service });
  let drained: Promise<void> | undefined;

  return {
    core,
    cells,
    store,
    decisions,
    aggregators,
    generator,
    triggers,
    runtime,
    loops,
    async registerWebhooks() {
      // a caBundle needs a certificate (self-managed: the Secret's, which a leader may still be
      // making: its loop must have been added)
      for (const c of cellSpecs) if (registers(c)) await registration.register(c, webhook);
      // the enforcer looks at once rather than at its next retry for a missing configuration
      enforcer.poke();
      logProtectionOn(log, { webhook, core, cells, clientAuth });
    },
    webhook,
    metrics,
    certificates: {
      mode: certs.mode,
      ...(certs.mode !== 'process' ? { secret: `${certs.secret.namespace}/${certs.secret.name}` } : {}),
      controller: certController,
    },
    enforcer,
    namespaceLabels,
    notReady,
    ...enforcementSeen(enforcer, manager, cellClusters),
    drain() {
      drained ??=
        sharedUrl || service
          ? webhook.drain({ until: endpoints?.gone(), maxMs: cfg.webhook.drainTimeout })
          : Promise.resolve();
      return drained;
    },
    review: (text, cellId, timeoutMs = 10_000) => handleReview(reviewDeps, text, cellId, timeoutMs),
    async stop() {
      // a replica behind a shared address drains first, while it can still judge what arrives
      // (stopped without SIGTERM's drain: it stops listening now, its open connections finish)
      await (drained ??=
        sharedUrl || service ? webhook.drain({ maxMs: 0, closeMs: CLOSE_MS }) : Promise.resolve());
      // its loops were taken off their manager before this (server/loops.ts)
      await watch?.stop();
      admission.stop();
      endpoints?.stop();
      await Promise.all([
        ...aggregators.map((a) => a.stop()),
        generator?.stop(),
        store.stop(),
        namespaceLabels.stop(),
      ]);
      await stopOwn();
      await webhook.stop();
    },
  };
}

/** Each cluster's shared watches: the console's, else one registry of protection's own per cluster. */
function registries(given: ((c: ClusterSpec) => InformerRegistry | undefined) | undefined, root: Logger) {
  const own = new Map<string, InformerRegistry>();
  return {
    registryOf(c: ClusterSpec): InformerRegistry {
      const theirs = given?.(c);
      if (theirs) return theirs;
      let r = own.get(c.id);
      if (!r) own.set(c.id, (r = new InformerRegistry(c.kc, {}, root.child({ cluster: c.id }))));
      return r;
    },
    stopOwn: () => Promise.all([...own.values()].map((r) => r.stop())),
  };
}

/** What is on once the webhooks are registered, and who may call them. */
function logProtectionOn(
  log: Logger,
  o: {
    webhook: WebhookServer;
    core: ClusterSpec;
    cells: CellInfo[];
    clientAuth: ReturnType<typeof resolveClientTrust>;
  },
) {
  log.info(
    {
      webhook: o.webhook.url,
      core: o.core.context,
      cells: o.cells.map((c) => `${c.id}${c.registered ? ' (registered)' : ''}`),
    },
    'protection on',
  );
  if (o.clientAuth.required)
    log.info(
      { allowedNames: o.clientAuth.allowedNames, signedBy: o.clientAuth.source },
      'webhook callers: client certificates only',
    );
}

/** The webhook's enforcement as this replica can tell it: the leader's finding, or the configurations'. */
function enforcementSeen(
  enforcer: Enforcer,
  manager: { isLeader(): boolean },
  cellClusters: readonly { id: string; cluster: ClusterSpec }[],
): Pick<ProtectionService, 'warnings' | 'enforcement'> {
  let followerView: { at: number; value: EnforcementStatus[] } | undefined;
  return {
    warnings: () =>
      enforcer
        .current()
        .filter((e) => e.state === 'not-enforced' || e.state === 'enforced-unreachable')
        .map((e) => `cell ${e.cell}: ${e.message}`),
    async enforcement() {
      if (manager.isLeader()) return enforcer.current();
      // a follower reads what the leader wrote on each configuration (at most every few seconds)
      if (followerView && Date.now() - followerView.at < FOLLOWER_VIEW_MS) return followerView.value;
      followerView = { at: Date.now(), value: await enforcementOnConfigurations(cellClusters) };
      return followerView.value;
    },
  };
}

/** Per cell this replica indexes (its watch up), the protector's pods' counts now. */
function liveCountsOf(indexes: ReadonlyMap<string, Aggregator>, p: PodProtector): LiveCounts | undefined {
  const now = Date.now();
  const out = new Map<string, Counts>();
  for (const [cell, a] of indexes) {
    const counts = a.liveCounts(p, now);
    if (counts) out.set(cell, counts);
  }
  return out.size ? out : undefined;
}
