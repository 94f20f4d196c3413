import { describe, expect, it } from 'vitest';
import {
  cniConflist,
  containerdConfig,
  kubeProxyArgs,
  kubeletArgs,
  kubeletConfig,
  planNodes,
} from './plan.js';

describe('planNodes', () => {
  it.each([
    [1, 1, [['ra1', 'zone-a', '10.77.0.11', '10.244.1.0/24']]],
    [
      4,
      2,
      [
        ['ra1', 'zone-a', '10.77.0.11', '10.244.1.0/24'],
        ['rb1', 'zone-b', '10.77.0.12', '10.244.2.0/24'],
        ['ra2', 'zone-a', '10.77.0.13', '10.244.3.0/24'],
        ['rb2', 'zone-b', '10.77.0.14', '10.244.4.0/24'],
      ],
    ],
    [
      3,
      3,
      [
        ['ra1', 'zone-a', '10.77.0.11', '10.244.1.0/24'],
        ['rb1', 'zone-b', '10.77.0.12', '10.244.2.0/24'],
        ['rc1', 'zone-c', '10.77.0.13', '10.244.3.0/24'],
      ],
    ],
  ])('%i nodes in %i zones', (nodes, zones, want) => {
    const plans = planNodes({ nodes, zones, state: '/s' });
    expect(plans.map((p) => [p.name, p.zone, p.ip, p.podCidr])).toEqual(want);
    expect(plans[0]).toMatchObject({
      netns: 'palnode-ra1',
      hostVeth: 'palv-ra1',
      disk: '/s/ra1/disk',
      run: '/s/ra1/run',
      cgroup: 'palisade-nodes/ra1',
      podGateway: '10.244.1.1',
    });
  });

  it.each([
    [0, 1, 'nodes: 1 to 32, got 0'],
    [33, 1, 'nodes: 1 to 32, got 33'],
    [2, 0, 'zones: 1 to 8, got 0'],
    [2.5, 1, 'nodes: 1 to 32, got 2.5'],
  ])('%s nodes in %s zones is refused', (nodes, zones, message) => {
    expect(() => planNodes({ nodes, zones, state: '/s' })).toThrow(message);
  });
});

describe('the upstream programs are told', () => {
  const [n] = planNodes({ nodes: 1, zones: 1, state: '/s' });

  it('containerd: its own root, state and socket, runc v2 with cgroupfs, the node CNI folder', () => {
    const toml = containerdConfig(n);
    for (const line of [
      'root = "/s/ra1/disk/containerd"',
      'state = "/s/ra1/run/containerd"',
      'address = "/s/ra1/run/containerd.sock"',
      'runtime_type = "io.containerd.runc.v2"',
      'SystemdCgroup = false',
      'conf_dir = "/s/ra1/disk/cni"',
      'sandbox_image = "registry.k8s.io/pause:3.10"',
      'restrict_oom_score_adj = true',
      'netns_mounts_under_state_dir = true',
    ])
      expect(toml).toContain(line);
  });

  it('CNI: a bridge routed (not masqueraded) with leases on the node disk', () => {
    const conf = JSON.parse(cniConflist(n));
    expect(conf.plugins[0]).toMatchObject({
      type: 'bridge',
      ipMasq: false,
      ipam: {
        ranges: [[{ subnet: '10.244.1.0/24', gateway: '10.244.1.1' }]],
        dataDir: '/s/ra1/disk/cni-leases',
      },
    });
  });

  it('the kubelet: cgroupfs below the node, webhook authn/authz, its node name, IP and zone', () => {
    const yaml = kubeletConfig(n, { caFile: '/s/ca.crt', kubeconfig: '/s/ra1.kubeconfig' });
    for (const line of [
      'cgroupDriver: cgroupfs',
      'cgroupRoot: /palisade-nodes/ra1/pods',
      'containerRuntimeEndpoint: unix:///s/ra1/run/containerd.sock',
      'podLogsDirectory: /s/ra1/disk/pod-logs',
      'clientCAFile: /s/ca.crt',
      'mode: Webhook',
      'address: 10.77.0.11',
    ])
      expect(yaml).toContain(line);
    expect(kubeletArgs(n, { caFile: '/s/ca.crt', kubeconfig: '/s/ra1.kubeconfig' }, '/s/k.yaml')).toEqual(
      expect.arrayContaining([
        '--kubeconfig=/s/ra1.kubeconfig',
        '--root-dir=/s/ra1/disk/kubelet',
        '--hostname-override=ra1',
        '--node-ip=10.77.0.11',
        '--node-labels=topology.kubernetes.io/zone=zone-a',
      ]),
    );
  });

  it('kube-proxy: iptables mode for its node, leaving the machine-wide conntrack limit alone', () => {
    expect(kubeProxyArgs(n, '/s/p.kubeconfig')).toEqual(
      expect.arrayContaining([
        '--hostname-override=ra1',
        '--proxy-mode=iptables',
        '--conntrack-max-per-core=0',
      ]),
    );
  });
});
