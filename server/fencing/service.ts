// Fencing in the console's process: one controller per connected cluster that serves the
// FencePolicy CRD and is not read-only. No FencePolicy, no fencing: the policies are the opt-in,
// so connecting Palisade to a cluster never fences anything by itself. Every console watches;
// only the leader of the cluster's `kube-system/palisade-fencing` Lease acts, so two consoles on
// one cluster never run two fence agents for one node.
import * as k8s from '@kubernetes/client-node';
import { GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import { errorText, isNotFound } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import { LeaseElector } from '../leader/elector.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import { FencingController } from './controller.js';
import { execAgent } from './execAgent.js';

export const FENCING_LEASE = { namespace: 'kube-system', name: 'palisade-fencing' };

export interface FencingService {
  controllers: Map<string, FencingController>;
  electors: Map<string, LeaseElector>;
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

/** `logger`: where the controllers, electors and agents log (the root logger by default). */
export async function startFencing(
  clusters: Iterable<ClusterConnection>,
  logger: Logger = rootLogger,
  election: { leaseDurationSeconds?: number; renewDeadlineMs?: number; retryPeriodMs?: number } = {},
): Promise<FencingService> {
  const controllers = new Map<string, FencingController>();
  const electors = new Map<string, LeaseElector>();
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
    const leader = new LeaseElector({ kc: conn.spec.kc, ...FENCING_LEASE, ...election, logger: onCluster });
    const c = new FencingController({
      conn,
      exec: (spec) => execAgent(conn.spec.kc, spec, onCluster),
      logger,
      leader,
    });
    c.start();
    leader.start();
    controllers.set(conn.id, c);
    electors.set(conn.id, leader);
  }
  return {
    controllers,
    electors,
    async stop() {
      await Promise.all([...controllers.values()].map((c) => c.stop()));
      // release the Lease: another console takes over at once instead of after its duration
      await Promise.all([...electors.values()].map((e) => e.stop()));
    },
  };
}
