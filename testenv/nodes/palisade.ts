// Palisade installed on the real-node tier as an operator installs it: the image `npm run image`
// built, imported into every node's containerd (no registry is reachable), and the Helm chart
// with its defaults but for the image and the webhook's client CA: three replicas as pods, the
// webhook reached by kube-apiserver through its Service, the chart's ServiceAccount and RBAC,
// its PodDisruptionBudget and probes, certificates made by the leader.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { CHART, helmBin } from '../../deploy/test/helm.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { fromRoot } from '../../sim/root.js';
import { renameArchive } from './images/oci.js';
import type { RealNodeTier } from './tier.js';

export const PALISADE_NAMESPACE = 'palisade-system';
export const PALISADE_REPOSITORY = 'palisade.local/palisade';
/** the ConfigMap with the CA that signs kube-apiserver's webhook client certificate */
const CLIENT_CA_CONFIGMAP = 'apiserver-client-ca';

export const imageVersion = () =>
  JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')).version as string;
export const imageArchive = () => fromRoot('dist', `palisade-${imageVersion()}.oci.tar`);

/** `npm run image` (cached layers; the app layer is this checkout's), unless `reuse` and it exists */
export function buildImage(log: (m: string) => void, reuse = false): string {
  const archive = imageArchive();
  if (reuse && existsSync(archive)) return archive;
  const started = Date.now();
  execFileSync('bash', [fromRoot('scripts', 'image', 'build.sh')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 40 * 60_000,
  });
  log(`image built in ${Math.round((Date.now() - started) / 1000)} s: ${archive}`);
  return archive;
}

export interface InstallOptions {
  archive: string;
  log?: (m: string) => void;
  /** more `--set` values */
  set?: Record<string, string>;
  /** wait this long for the replicas to be Ready and the webhook enforced */
  timeoutMs?: number;
}

/** Import the image into every powered-on node, install the chart and wait for three Ready replicas. */
export async function installPalisade(tier: RealNodeTier, opts: InstallOptions) {
  const log = opts.log ?? (() => undefined);
  const named = join(tier.state, 'palisade.oci.tar');
  renameArchive(opts.archive, named, `${PALISADE_REPOSITORY}:${imageVersion()}`);
  for (const n of tier.nodes) if (n.on) n.importArchive(named);
  const core = tier.kubeConfig.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: PALISADE_NAMESPACE } } }).catch(alreadyExists);
  await core
    .createNamespacedConfigMap({
      namespace: PALISADE_NAMESPACE,
      body: { metadata: { name: CLIENT_CA_CONFIGMAP }, data: { 'ca.crt': tier.caPem } },
    })
    .catch(alreadyExists);
  const values: Record<string, string> = {
    'image.repository': PALISADE_REPOSITORY,
    'image.tag': imageVersion(),
    'image.pullPolicy': 'Never',
    'webhook.clientAuth.caConfigMap.name': CLIENT_CA_CONFIGMAP,
    ...opts.set,
  };
  const started = Date.now();
  helm(tier, [
    'upgrade',
    '--install',
    'palisade',
    CHART,
    '--namespace',
    PALISADE_NAMESPACE,
    ...Object.entries(values).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
  ]);
  await waitReplicas(tier, 3, opts.timeoutMs ?? 600_000);
  log(`chart installed; 3 replicas Ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

export function helm(tier: RealNodeTier, args: string[]): string {
  return execFileSync(helmBin(), [...args, '--kubeconfig', tier.kubeconfigPath], {
    encoding: 'utf8',
    timeout: 300_000,
  });
}

/** Palisade's pods: name, node, Ready */
export async function replicas(tier: RealNodeTier) {
  const core = tier.kubeConfig.makeApiClient(k8s.CoreV1Api);
  const pods = await core.listNamespacedPod({
    namespace: PALISADE_NAMESPACE,
    // the Deployment's pods (the chart's probe and update-trigger pods carry the name too)
    labelSelector: 'app.kubernetes.io/name=palisade,pod-template-hash',
  });
  return pods.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => ({
      name: p.metadata?.name as string,
      node: p.spec?.nodeName as string,
      ip: p.status?.podIP as string,
      ready: !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      restarts: p.status?.containerStatuses?.[0]?.restartCount ?? 0,
    }));
}

async function waitReplicas(tier: RealNodeTier, count: number, timeoutMs: number) {
  await eventually(
    async () => (await replicas(tier)).filter((r) => r.ready).length === count,
    `${count} Ready replicas of Palisade`,
    timeoutMs,
  );
}

function alreadyExists(e: unknown) {
  if ((e as { code?: number }).code !== 409) throw e;
}
