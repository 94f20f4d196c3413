// Fencing in the console's process: one controller per connected cluster that serves the
// FencePolicy CRD and is not read-only. No FencePolicy, no fencing: the policies are the opt-in,
// so connecting Palisade to a cluster never fences anything by itself. Every console watches;
// only the leader of the cluster's controller Lease (`kube-system/palisade-controller` by
// default: controllers.leaderElection in palisade.yaml) acts, on the controller runtime, so two
// consoles on one cluster never run two fence agents for one node.
import * as k8s from '@kubernetes/client-node';
import { GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import { DEFAULT_CREDENTIALS_NAMESPACE } from '../config/schema.js';
import { errorText, isNotFound } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import type { Manager } from '../runtime/manager.js';
import type { ControllerRuntime } from '../runtime/runtime.js';
import { type LoopEntry, loopsOn } from '../loops.js';
import { type ConfigPolicySpecs, ConfigPolicies } from './configPolicies.js';
import { FencingController } from './controller.js';
import { execAgent } from './execAgent.js';

export interface FencingService {
  controllers: Map<string, FencingController>;
  /** the loops that create palisade.yaml's FencePolicies (fencing.policies), by cluster */
  configPolicies: Map<string, ConfigPolicies>;
  /** the manager (controller Lease) each controller runs under, by cluster */
  managers: Map<string, Manager>;
  /** every loop of fencing, for server/loops.ts to add (nothing here adds them) */
  loops: LoopEntry[];
  stop(): Promise<void>;
}

async function servesPolicies(kc: k8s.KubeConfig): Promise<true | string> {
  try {
    await kc
      .makeApiClient(k8s.CustomObjectsApi)
      .listClusterCustomObject({ group: GROUP, version: VERSION, plural: POLICY_PLURAL, limit: 1 });
    return true;
  } catch (e) {
    if (isNotFound(e)) return 'the FencePolicy CRD is not installed (kubectl apply -f deploy/crds/)';
    return errorText(e);
  }
}

/**
 * `logger`: where the controllers and agents log (the root logger by default); `policies`:
 * palisade.yaml's fencing.policies, which the leader creates on every cluster fencing runs on;
 * `credentialsNamespaces`: palisade.yaml fencing.credentialsNamespaces, resolved (main.ts).
 */
export async function startFencing(
  clusters: Iterable<ClusterConnection>,
  runtime: ControllerRuntime,
  logger: Logger = rootLogger,
  policies?: ConfigPolicySpecs,
  credentialsNamespaces: readonly string[] = [DEFAULT_CREDENTIALS_NAMESPACE],
): Promise<FencingService> {
  const controllers = new Map<string, FencingController>();
  const configPolicies = new Map<string, ConfigPolicies>();
  const managers = new Map<string, Manager>();
  const loops: LoopEntry[] = [];
  for (const conn of clusters) {
    const onCluster = logger.child({ cluster: conn.id });
    const log = component('fencing', {}, onCluster);
    if (conn.spec.mode === 'read-only') {
      log.info({ mode: conn.spec.mode }, 'fencing off: the cluster is read-only');
      continue;
    }
    const serves = await servesPolicies(conn.spec.kc);
    if (serves !== true) {
      log.info({ reason: serves }, 'fencing off');
      continue;
    }
    const c = new FencingController({
      conn,
      exec: (spec) => execAgent(conn.spec.kc, spec, { credentialsNamespaces, logger: onCluster }),
      logger,
      credentialsNamespaces,
    });
    c.start();
    controllers.set(conn.id, c);
    managers.set(conn.id, runtime.manager(conn.spec));
    const p =
      policies && Object.keys(policies).length
        ? new ConfigPolicies({ kc: conn.spec.kc, policies, logger: onCluster })
        : undefined;
    if (p) configPolicies.set(conn.id, p);
    loops.push(...loopsOn('fencing', conn.spec, [c.loop, p?.loop]));
  }
  return {
    controllers,
    configPolicies,
    managers,
    loops,
    async stop() {
      // the loops were taken off their managers before this (server/loops.ts)
      await Promise.all([...controllers.values()].map((c) => c.stop()));
    },
  };
}
