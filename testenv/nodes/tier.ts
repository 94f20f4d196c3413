// The real-node tier: the test tier's etcd, kube-apiserver and kube-controller-manager with N
// real nodes (kubelet, containerd, CNI bridge, kube-proxy; testenv/nodes/node.ts) joined to it.
// kube-apiserver listens on the nodes' bridge (10.77.0.1), reachable from this machine only.
// One tier at a time per machine: start() first takes away what a killed run left behind.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { createCertificateAuthority } from '../../lib/pki/certificates.js';
import {
  issueClientCertificate,
  writeWebhookClientConfig,
} from '../../sim/apiserver/admission/clientCertificate.js';
import { kubeconfigYaml } from '../../sim/apiserver/kubeconfig.js';
import { ensureNodeBinaries } from '../../sim/real/binaries.js';
import { type RealControlPlane, startRealControlPlane } from '../../sim/real/controlPlane.js';
import { GuardedProcess } from '../../sim/real/process.js';
import {
  bridgeDown,
  bridgeUp,
  cgroupDown,
  cgroupParentDown,
  killNode,
  leftovers,
  netnsDown,
  netnsUp,
  run,
} from './host.js';
import { buildNodeImages } from './images/build.js';
import { RealNode } from './node.js';
import { HOST_IP, type NodePlan, planNodes } from './plan.js';

export interface RealNodeTierOptions {
  nodes?: number;
  zones?: number;
  log?: (m: string) => void;
  /** wait this long for every node to be Ready */
  readyTimeoutMs?: number;
}

export interface RealNodeTier {
  controlPlane: RealControlPlane;
  nodes: RealNode[];
  /** a client of the tier's API server as its admin */
  kubeConfig: k8s.KubeConfig;
  /** the admin's kubeconfig file (helm, kubectl) */
  kubeconfigPath: string;
  /** the cluster CA (it signs the API server's webhook client certificate too) */
  caPem: string;
  state: string;
  stop(): Promise<void>;
}

/** the kubelet's client certificate's user, as kubeadm names it */
const KUBELET_CLIENT_CN = 'kube-apiserver-kubelet-client';

export async function startRealNodeTier(opts: RealNodeTierOptions = {}): Promise<RealNodeTier> {
  const log = opts.log ?? (() => undefined);
  preflight();
  await cleanUp(log);
  const bins = await ensureNodeBinaries(log);
  const state = mkdtempSync(join(tmpdir(), 'palisade-nodes-'));
  const plans = planNodes({ nodes: opts.nodes ?? 4, zones: opts.zones ?? 2, state });
  const images = buildNodeImages(join(state, 'images'));
  log(`images built: ${images.join(', ')}`);

  const ca = await createCertificateAuthority('palisade-real-nodes-ca');
  const kubeletClient = await issueClientCertificate(ca, KUBELET_CLIENT_CN);
  const tokens = new Map(plans.map((n) => [n.name, randomBytes(24).toString('hex')]));
  const proxyToken = randomBytes(24).toString('hex');
  const tokenFile = join(state, 'node-tokens.csv');
  writeFileSync(
    tokenFile,
    [
      ...plans.map((n) => `${tokens.get(n.name)},system:node:${n.name},system:node:${n.name},"system:nodes"`),
      `${proxyToken},system:kube-proxy,system:kube-proxy`,
    ].join('\n'),
    { mode: 0o600 },
  );
  writeFileSync(join(state, 'kubelet-client.crt'), kubeletClient.certPem);
  writeFileSync(join(state, 'kubelet-client.key'), kubeletClient.keyPem, { mode: 0o600 });
  const caFile = join(state, 'ca.crt');
  writeFileSync(caFile, ca.certPem);
  // kube-apiserver presents a client certificate of the cluster CA to admission webhooks, as a
  // kubeadm control plane configured for it does (docs/webhook-client-auth.md)
  const webhookClient = await writeWebhookClientConfig(state, ca);

  bridgeUp();
  const nodes: RealNode[] = [];
  let controlPlane: RealControlPlane | undefined;
  let scheduler: GuardedProcess | undefined;
  const stop = async () => {
    await scheduler?.stop();
    await Promise.all(nodes.map((n) => n.powerOff().catch((e) => log(`${n.name}: ${e.message}`))));
    for (const n of plans) netnsDown(n);
    cgroupParentDown();
    log('nodes gone; stopping the control plane');
    await controlPlane?.stop();
    bridgeDown();
    rmSync(state, { recursive: true, force: true });
  };
  try {
    controlPlane = await startRealControlPlane({
      bindAddress: HOST_IP,
      ca,
      tokenAuthFile: tokenFile,
      contextName: 'palisade-real-nodes',
      admissionControlConfigFile: webhookClient.admissionConfigFile,
      log,
      apiserverArgs: () => [
        `--kubelet-client-certificate=${join(state, 'kubelet-client.crt')}`,
        `--kubelet-client-key=${join(state, 'kubelet-client.key')}`,
        '--kubelet-preferred-address-types=InternalIP',
        // a webhook's Service is called at its endpoints' pod IPs, which this machine routes to;
        // its ClusterIP exists only in the nodes' kube-proxy rules
        '--enable-aggregator-routing=true',
      ],
    });
    const kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfig);
    // the real nodes' pods are placed by the real scheduler (the embedded cluster has its own)
    // the admin's kubeconfig: the scheduler's, and the one the tier hands out (helm, kubectl)
    const kubeconfigPath = join(state, 'admin.kubeconfig');
    writeFileSync(kubeconfigPath, controlPlane.kubeconfig, { mode: 0o600 });
    scheduler = new GuardedProcess(
      'kube-scheduler',
      bins.kubeScheduler,
      [
        `--kubeconfig=${kubeconfigPath}`,
        `--authentication-kubeconfig=${kubeconfigPath}`,
        `--authorization-kubeconfig=${kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        '--leader-elect=false',
      ],
      state,
    );
    await grantKubeletApi(kubeConfig);
    for (const n of plans) netnsUp(n, plans);
    const write = (name: string, token: string) => {
      const file = join(state, `${name}.kubeconfig`);
      writeFileSync(file, kubeconfigYaml(controlPlane!.url, ca.certPem, token), { mode: 0o600 });
      return file;
    };
    const proxyKubeconfig = write('kube-proxy', proxyToken);
    for (const plan of plans) {
      const creds = { caFile, kubeletKubeconfig: write(plan.name, tokens.get(plan.name)!), proxyKubeconfig };
      nodes.push(new RealNode(plan, bins, creds, images, log));
    }
    // one at a time: containerd's start and the image import are the CPU-heavy part
    for (const n of nodes) await n.powerOn();
    await waitReady(kubeConfig, plans, opts.readyTimeoutMs ?? 180_000);
    // a pod is refused (403) until the controller manager made its namespace's ServiceAccount
    await waitDefaultServiceAccount(kubeConfig, opts.readyTimeoutMs ?? 180_000);
    log(`${nodes.length} real nodes Ready: ${plans.map((p) => `${p.name} (${p.zone})`).join(', ')}`);
    return { controlPlane, nodes, kubeConfig, kubeconfigPath, caPem: ca.certPem, state, stop };
  } catch (e) {
    await stop().catch((err) => log(`stopping after a failed start: ${err.message}`));
    throw e;
  }
}

/** root and the host tools the tier runs; what is missing, named */
function preflight() {
  if (process.getuid?.() !== 0)
    throw new Error('the real-node tier needs root (network namespaces, cgroups)');
  const missing = [
    'ip',
    'iptables',
    'containerd',
    'containerd-shim-runc-v2',
    'runc',
    'ctr',
    'nsenter',
    'unshare',
  ].filter((t) => !run('bash', ['-c', `command -v ${t}`], { allowFail: true }));
  if (!run('bash', ['-c', 'ls /usr/lib/cni/bridge'], { allowFail: true }))
    missing.push('/usr/lib/cni/bridge');
  if (missing.length)
    throw new Error(
      `the real-node tier needs ${missing.join(', ')}: apt-get install containerd runc containernetworking-plugins iptables`,
    );
}

/** take away what an earlier, killed run left (by the tier's fixed names) */
export async function cleanUp(log: (m: string) => void = () => undefined) {
  const found = leftovers();
  if (found.length === 0) return;
  log(`removing what an earlier run left: ${found.join('; ')}`);
  const plans = planNodes({ nodes: 32, zones: 8, state: '/nonexistent' });
  for (const n of plans) {
    await killNode(n);
    cgroupDown(n);
    netnsDown(n);
  }
  cgroupParentDown();
  bridgeDown();
}

async function grantKubeletApi(kc: k8s.KubeConfig) {
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'palisade-kubelet-api-admin' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:kubelet-api-admin',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KUBELET_CLIENT_CN }],
    },
  });
}

async function waitDefaultServiceAccount(kc: k8s.KubeConfig, timeoutMs: number) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (
      await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' }).then(
        () => true,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline)
      throw new Error(`no ServiceAccount default/default after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function waitReady(kc: k8s.KubeConfig, plans: NodePlan[], timeoutMs: number) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  let notReady: string[] = plans.map((p) => p.name);
  while (Date.now() < deadline) {
    const list = await core.listNode().catch(() => ({ items: [] as k8s.V1Node[] }));
    const ready = new Set(
      list.items
        .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        .map((n) => n.metadata?.name),
    );
    notReady = plans.map((p) => p.name).filter((n) => !ready.has(n));
    if (notReady.length === 0) return;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error(`nodes not Ready in ${timeoutMs / 1000} s: ${notReady.join(', ')}`);
}
