// Feeds the ProtectionChecker from the Kubernetes API only, as a client of any cluster
// would: the shared pod and node informers plus one PodProtector informer.
import * as k8s from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION } from '../../lib/protection/types.js';
import { SupervisedInformer } from '../controllers/runtime/informer.js';
import { ProtectionChecker, type ProtectionCheckerOptions } from './protection.js';

export interface SharedInformers {
  pods: SupervisedInformer<k8s.V1Pod>;
  nodes: SupervisedInformer<k8s.V1Node>;
}

/** how often open violations are re-judged with no pod event (minReadySeconds passing) */
const RECHECK_MS = 1000;

/**
 * The node still runs what the API says runs there: Ready, and not declared shut down by the
 * out-of-service taint. A fence powers a node off before the API notices (its Ready condition
 * lags by the node-monitor grace period) and taints it out of service at once: the pods its
 * release then deletes were lost to the node, even though the API still said Ready.
 */
export const nodeInService = (n: k8s.V1Node | undefined) =>
  (n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false) &&
  !(n?.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service');

export async function watchProtection(
  kc: k8s.KubeConfig,
  shared: SharedInformers,
  /** waitForProtectors: false when the PodProtector CRD may not be installed */
  opts: ProtectionCheckerOptions & { waitForProtectors?: boolean } = {},
): Promise<ProtectionChecker> {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const protectors = new SupervisedInformer<k8s.KubernetesObject>(
    kc,
    `/apis/${GROUP}/${VERSION}/${PLURAL}`,
    () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }),
  );
  const checker = new ProtectionChecker(
    {
      pods: (ns) => shared.pods.list(ns),
      protectors: (ns) => protectors.list(ns),
      nodeReady: (name) => nodeInService(shared.nodes.get(name)),
    },
    opts,
  );
  shared.pods.on({
    update: (pod, old) => checker.podUpdated(pod, old),
    delete: (pod) => checker.podRemoved(pod),
  });
  const touch = (p: k8s.KubernetesObject) => checker.touch(p.metadata?.namespace ?? '');
  protectors.on({ add: touch, update: touch, delete: touch });
  await Promise.all([shared.pods.start(), shared.nodes.start(), protectors.start()]);
  await Promise.all([shared.pods.synced(), shared.nodes.synced()]);
  if (opts.waitForProtectors !== false) await protectors.synced();
  const tick = setInterval(() => checker.recheck(), RECHECK_MS);
  tick.unref();
  checker.onStop(() => clearInterval(tick));
  checker.onStop(() => protectors.stop());
  return checker;
}
