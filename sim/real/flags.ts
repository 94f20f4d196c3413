// Command lines of the real control plane's processes, from the ports, the state folder and
// the scenario's durations. Pure: the flags are the contract with the upstream binaries, so
// they are table-tested apart from the process plumbing.
import { join } from 'node:path';
import type { Durations } from '../controllers/runtime/durations.js';

export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
}

export interface FlagInputs {
  state: string;
  ports: Ports;
  durations: Durations;
  /** DefaultTolerationSeconds admission: tolerationSeconds for not-ready and unreachable */
  defaultTolerationSeconds: number;
  /** an AdmissionConfiguration file (webhook client certificates), if any */
  admissionControlConfigFile?: string;
  /** an AuthenticationConfiguration file (JWT authenticators), beside the static token file */
  authenticationConfig?: string;
  /** where kube-apiserver listens and what it advertises (default 127.0.0.1; the real-node tier's bridge) */
  bindAddress?: string;
}

/**
 * kube-controller-manager's loops that the simulation does not provide itself. The PV binder
 * is not among them: the simulated CSI driver's provisioner and binder run as one stand-in
 * (sim/controllers/pvBinder.ts), as an external-provisioner would beside the real binder.
 */
export const CONTROLLERS = [
  '*',
  '-persistentvolume-binder-controller',
  '-persistentvolume-expander-controller',
];

/** a Go duration; the controller manager takes sub-second periods as scaled tests need */
const duration = (ms: number) => `${Math.max(1, Math.round(ms))}ms`;

export function etcdArgs({ state, ports }: FlagInputs): string[] {
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=default',
    `--data-dir=${join(state, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // throwaway state: durability buys nothing and fsync dominates on small disks
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

export function apiserverArgs({
  state,
  ports,
  defaultTolerationSeconds,
  admissionControlConfigFile,
  bindAddress = '127.0.0.1',
}: FlagInputs): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
    `--bind-address=${bindAddress}`,
    `--advertise-address=${bindAddress}`,
    `--secure-port=${ports.apiserver}`,
    `--tls-cert-file=${join(state, 'serving.crt')}`,
    `--tls-private-key-file=${join(state, 'serving.key')}`,
    `--token-auth-file=${join(state, 'tokens.csv')}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${join(state, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(state, 'sa.key')}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    `--default-not-ready-toleration-seconds=${defaultTolerationSeconds}`,
    `--default-unreachable-toleration-seconds=${defaultTolerationSeconds}`,
    `--cert-dir=${join(state, 'apiserver-certs')}`,
    ...(admissionControlConfigFile ? [`--admission-control-config-file=${admissionControlConfigFile}`] : []),
  ];
}

export function controllerManagerArgs({ state, ports, durations: d }: FlagInputs): string[] {
  const kubeconfig = join(state, 'controller-manager.kubeconfig');
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${ports.controllerManager}`,
    `--cert-dir=${join(state, 'controller-manager-certs')}`,
    '--leader-elect=false',
    `--service-account-private-key-file=${join(state, 'sa.key')}`,
    '--use-service-account-credentials=true',
    `--root-ca-file=${join(state, 'ca.crt')}`,
    // its default lies under /usr and is created at start-up
    `--flex-volume-plugin-dir=${join(state, 'flexvolume')}`,
    `--controllers=${CONTROLLERS.join(',')}`,
    `--node-monitor-grace-period=${duration(d.nodeMonitorGracePeriodMs)}`,
    `--node-monitor-period=${duration(d.nodeMonitorPeriodMs)}`,
    `--node-startup-grace-period=${duration(Math.max(d.nodeMonitorGracePeriodMs, 1000))}`,
    // the embedded cluster evicts as soon as tolerations run out; so does this one
    '--node-eviction-rate=1000',
    '--secondary-node-eviction-rate=1000',
    ...(d.forceDetachEnabled ? [] : ['--disable-force-detach-on-timeout=true']),
    '--attach-detach-reconcile-sync-period=1s',
  ];
}

/** kube-apiserver's JWT authenticators; they may not be combined with --oidc-* flags */
export function authenticationArgs({ authenticationConfig }: FlagInputs): string[] {
  return authenticationConfig ? [`--authentication-config=${authenticationConfig}`] : [];
}
