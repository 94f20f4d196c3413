// The real-node tier's layout and the upstream programs' configuration, as data: which node
// gets which address, pod range, zone and folders, and what containerd, the kubelet, the CNI
// bridge and kube-proxy are told. Pure, so the contract with the upstream binaries is
// table-tested apart from the namespaces and processes (testenv/nodes/host.ts, node.ts).
import { join } from 'node:path';

/** One tier at a time per machine: the names below are fixed, and `down` finds leftovers by them. */
export const BRIDGE = 'palbr0';
/** the host's address on the bridge: kube-apiserver listens here, the nodes reach it here */
export const HOST_IP = '10.77.0.1';
export const BRIDGE_CIDR = '10.77.0.0/24';
export const CLUSTER_CIDR = '10.244.0.0/16';
export const SERVICE_CIDR = '10.96.0.0/16';
export const NETNS_PREFIX = 'palnode-';
/** each v1 cgroup hierarchy holds one folder per node under this one */
export const CGROUP_PARENT = 'palisade-nodes';
/** the images every node has (imported, never pulled: no registry is reachable) */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
export const WORKLOAD_IMAGE = 'palisade.local/workload:1';

export interface NodePlan {
  index: number;
  name: string;
  zone: string;
  /** the node's address on the bridge (eth0 in its network namespace) */
  ip: string;
  /** its pods' range: the CNI bridge's host-local addresses */
  podCidr: string;
  /** the CNI bridge's own address in that range: the pods' gateway */
  podGateway: string;
  netns: string;
  /** the host end of its veth pair */
  hostVeth: string;
  /** its disk (kubelet's root, containerd's root, pod logs), kept across power cycles */
  disk: string;
  /** its memory (containerd's state, sockets), wiped by a power cycle */
  run: string;
  /** its folder in each v1 cgroup hierarchy: everything the node runs lives below it */
  cgroup: string;
}

export interface TierOptions {
  nodes: number;
  zones: number;
  /** the folder all nodes' disks and memory live in */
  state: string;
}

const ZONES = 'abcdefgh';

/** Nodes spread round-robin over zones: zone-a gets ra1, ra2, ...; zone-b rb1, ... */
export function planNodes({ nodes, zones, state }: TierOptions): NodePlan[] {
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 32) throw new Error(`nodes: 1 to 32, got ${nodes}`);
  if (!Number.isInteger(zones) || zones < 1 || zones > ZONES.length)
    throw new Error(`zones: 1 to ${ZONES.length}, got ${zones}`);
  const perZone = new Map<string, number>();
  return Array.from({ length: nodes }, (_, i) => {
    const z = ZONES[i % zones];
    const n = (perZone.get(z) ?? 0) + 1;
    perZone.set(z, n);
    const name = `r${z}${n}`;
    return {
      index: i + 1,
      name,
      zone: `zone-${z}`,
      ip: `10.77.0.${10 + i + 1}`,
      podCidr: `10.244.${i + 1}.0/24`,
      podGateway: `10.244.${i + 1}.1`,
      netns: `${NETNS_PREFIX}${name}`,
      hostVeth: `palv-${name}`,
      disk: join(state, name, 'disk'),
      run: join(state, name, 'run'),
      cgroup: `${CGROUP_PARENT}/${name}`,
    };
  });
}

export const containerdSocket = (n: NodePlan) => join(n.run, 'containerd.sock');

/** containerd 1.6 (Debian 12): its own root, state and socket; CRI with the node's CNI folder */
export function containerdConfig(n: NodePlan): string {
  return `version = 2
root = "${join(n.disk, 'containerd')}"
state = "${join(n.run, 'containerd')}"
oom_score = 0

[grpc]
  address = "${containerdSocket(n)}"

[ttrpc]
  address = "${containerdSocket(n)}.ttrpc"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  # pods' network namespaces under the node's memory, not the machine's /run/netns
  netns_mounts_under_state_dir = true
  # this machine withholds CAP_SYS_RESOURCE: no process may lower its oom_score_adj below 0,
  # so the kubelet's -998 for sandboxes (and -997 for Guaranteed pods) is raised to 0
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  # the kubelet's cgroup driver: cgroupfs (no systemd on these nodes)
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${join(n.disk, 'cni')}"
`;
}

/** The CNI bridge: pods' addresses from the node's range, routed (not masqueraded) between nodes. */
export function cniConflist(n: NodePlan): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: `pods-${n.name}`,
      plugins: [
        {
          type: 'bridge',
          bridge: 'cni0',
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: n.podCidr, gateway: n.podGateway }]],
            routes: [{ dst: '0.0.0.0/0' }],
            // host-local keeps its leases in /var/lib/cni by default: shared by every node here
            dataDir: join(n.disk, 'cni-leases'),
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

export interface KubeletInputs {
  /** the cluster CA's file (the kubelet trusts the API server by it) */
  caFile: string;
  kubeconfig: string;
}

/**
 * KubeletConfiguration: cgroupfs under the node's own cgroup folder, its own root, log and
 * plugin folders, no swap check (this machine has no swap), disk-pressure eviction off (the
 * nodes share one disk whose fill is not theirs), sync periods as a real node's defaults.
 */
export function kubeletConfig(n: NodePlan, { caFile }: KubeletInputs): string {
  return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: ${n.ip}
port: 10250
healthzBindAddress: 127.0.0.1
healthzPort: 10248
cgroupDriver: cgroupfs
cgroupRoot: /${n.cgroup}/pods
cgroupsPerQOS: true
failSwapOn: false
failCgroupV1: false
containerRuntimeEndpoint: unix://${containerdSocket(n)}
podLogsDirectory: ${join(n.disk, 'pod-logs')}
staticPodPath: ""
resolvConf: /etc/resolv.conf
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: ${caFile}
authorization:
  mode: Webhook
evictionHard:
  memory.available: 100Mi
  nodefs.available: "0%"
  imagefs.available: "0%"
  nodefs.inodesFree: "0%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
registerNode: true
`;
}

export function kubeletArgs(n: NodePlan, inputs: KubeletInputs, configFile: string): string[] {
  return [
    `--config=${configFile}`,
    `--kubeconfig=${inputs.kubeconfig}`,
    `--root-dir=${join(n.disk, 'kubelet')}`,
    `--cert-dir=${join(n.disk, 'kubelet', 'pki')}`,
    `--hostname-override=${n.name}`,
    `--node-ip=${n.ip}`,
    `--node-labels=topology.kubernetes.io/zone=${n.zone}`,
    '--v=1',
  ];
}

export function kubeProxyArgs(n: NodePlan, kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--hostname-override=${n.name}`,
    '--proxy-mode=iptables',
    `--cluster-cidr=${CLUSTER_CIDR}`,
    // a Service's backend on the client's own bridge answers through the proxy too
    '--masquerade-all=true',
    // nf_conntrack_max is the machine's, not the node's: leave it alone
    '--conntrack-max-per-core=0',
    '--metrics-bind-address=127.0.0.1:10249',
    '--healthz-bind-address=127.0.0.1:10256',
    '--v=1',
  ];
}
