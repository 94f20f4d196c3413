// The real-node tier against a real kube-apiserver and kube-controller-manager: real kubelets
// register, run a pod in containerd, serve its logs and a Service through kube-proxy; then the
// faults, each checked against what a real node does: a partitioned node keeps its containers
// running while the control plane marks it Unknown; a crashed kubelet leaves them running too;
// a power cut kills them all and the node comes back with a new boot ID. Stopping the tier
// leaves nothing on the machine.
import { execFileSync, spawn } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { leftovers } from '../host.js';
import type { RealNode } from '../node.js';
import { WORKLOAD_IMAGE } from '../plan.js';
import { type RealNodeTier, startRealNodeTier } from '../tier.js';

let tier: RealNodeTier;
let core: k8s.CoreV1Api;
const ns = 'default';

beforeAll(async () => {
  tier = await startRealNodeTier({ nodes: 2, zones: 2, log: (m) => console.log(`[nodes] ${m}`) });
  core = tier.kubeConfig.makeApiClient(k8s.CoreV1Api);
}, 600_000);

afterAll(async () => {
  await tier?.stop();
  // the control plane is the test's own (sim/real): it stops with the tier
  expect(leftovers()).toEqual([]);
}, 180_000);

const node = (name: string) => tier.nodes.find((n) => n.name === name)!;
const ready = async (name: string) =>
  (await core.readNode({ name })).status?.conditions?.find((c) => c.type === 'Ready')?.status;

/** GET / of the workload at ip:8080, from inside a node's network namespace */
function curlFrom(from: RealNode, ip: string): string {
  try {
    return execFileSync(
      'ip',
      ['netns', 'exec', from.plan.netns, 'curl', '-s', '-m', '3', `http://${ip}:8080/`],
      {
        encoding: 'utf8',
      },
    );
  } catch {
    return '';
  }
}

/** the workload's containers running in a node's containerd (ground truth, below the API) */
const runningOn = (n: RealNode, pod: string) =>
  n.on
    ? n
        .ctr(['containers', 'ls', '--quiet', `labels."io.kubernetes.pod.name"==${pod}`], true)
        .split('\n')
        .filter(Boolean).length
    : 0;

async function runPod(name: string, nodeName: string) {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, labels: { app: name } },
      spec: {
        nodeName,
        terminationGracePeriodSeconds: 5,
        containers: [
          { name: 'w', image: WORKLOAD_IMAGE, imagePullPolicy: 'Never', args: ['-listen', ':8080'] },
        ],
      },
    },
  });
  return eventually(
    async () => {
      const p = await core.readNamespacedPod({ name, namespace: ns });
      return p.status?.phase === 'Running' && p.status.podIP;
    },
    `${name} Running`,
    120_000,
  );
}

describe('real nodes', () => {
  it('register with their zones, run a pod in containerd, and serve its logs and a Service', async () => {
    const nodes = (await core.listNode()).items;
    expect(
      nodes.map((n) => [n.metadata?.name, n.metadata?.labels?.['topology.kubernetes.io/zone']]).sort(),
    ).toEqual([
      ['ra1', 'zone-a'],
      ['rb1', 'zone-b'],
    ]);
    expect(nodes[0].status?.nodeInfo?.kubeletVersion).toBe('v1.34.10');
    expect(nodes[0].status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\/1\./);
    const ip = await runPod('web', 'ra1');
    expect(curlFrom(node('rb1'), ip)).toMatch(/^web pid=1 /);
    expect(runningOn(node('ra1'), 'web')).toBeGreaterThan(0);
    const logs = await eventually(
      () => core.readNamespacedPodLog({ name: 'web', namespace: ns }),
      'the pod log through the kubelet',
      30_000,
    );
    expect(logs).toMatch(/workload: web pid=1/);
    const svc = await core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    const clusterIp = svc.spec?.clusterIP;
    await eventually(
      () => {
        try {
          return execFileSync(
            'ip',
            ['netns', 'exec', 'palnode-rb1', 'curl', '-s', '-m', '3', `http://${clusterIp}/`],
            {
              encoding: 'utf8',
            },
          ).startsWith('web ');
        } catch {
          return false;
        }
      },
      'the Service through kube-proxy',
      60_000,
    );
  }, 240_000);

  it('a partitioned node keeps its containers running while the control plane marks it Unknown', async () => {
    const ra1 = node('ra1');
    const ip = (await core.readNamespacedPod({ name: 'web', namespace: ns })).status?.podIP as string;
    ra1.partition();
    await eventually(async () => (await ready('ra1')) === 'Unknown', 'ra1 Ready=Unknown', 180_000);
    // the pod still answers its peers on the other node, as on a real partition
    expect(curlFrom(node('rb1'), ip)).toMatch(/^web pid=1 /);
    expect(runningOn(ra1, 'web')).toBeGreaterThan(0);
    ra1.heal();
    await eventually(async () => (await ready('ra1')) === 'True', 'ra1 Ready again', 120_000);
  }, 360_000);

  it('a crashed kubelet leaves the containers running; restarted, it renews its Lease again', async () => {
    const ra1 = node('ra1');
    const coordination = tier.kubeConfig.makeApiClient(k8s.CoordinationV1Api);
    const renewed = async () =>
      new Date(
        (await coordination.readNamespacedLease({ name: 'ra1', namespace: 'kube-node-lease' })).spec
          ?.renewTime as unknown as string,
      ).getTime();
    const oldPid = ra1.kubeletPid();
    await ra1.crashKubelet();
    expect(ra1.kubeletPid()).toBeUndefined();
    expect(runningOn(ra1, 'web')).toBeGreaterThan(0);
    const restartedAt = Date.now();
    ra1.restartKubelet();
    await eventually(
      async () => (await renewed()) > restartedAt,
      'a Lease renewal by the new kubelet',
      120_000,
    );
    expect(ra1.kubeletPid()).not.toBe(oldPid);
    expect(await ready('ra1')).toBe('True');
    // the kubelet found the container running and kept it
    const pod = await core.readNamespacedPod({ name: 'web', namespace: ns });
    expect(pod.status?.containerStatuses?.[0].restartCount).toBe(0);
  }, 240_000);

  it('a power cut kills every process of the node; powered on, it boots with a new boot ID', async () => {
    const ra1 = node('ra1');
    const before = (await core.readNode({ name: 'ra1' })).status?.nodeInfo?.bootID;
    expect(before).toBe(ra1.bootId);
    await ra1.powerOff();
    expect(ra1.processes()).toEqual([]);
    await ra1.powerOn();
    await eventually(
      async () => (await core.readNode({ name: 'ra1' })).status?.nodeInfo?.bootID === ra1.bootId,
      'the new boot ID in the Node',
      120_000,
    );
    expect(ra1.bootId).not.toBe(before);
    // the kubelet starts the pod bound to it again (a new container: the old one died)
    await eventually(
      async () => {
        const p = await core.readNamespacedPod({ name: 'web', namespace: ns });
        return p.status?.phase === 'Running' && (p.status.containerStatuses?.[0].restartCount ?? 0) >= 1;
      },
      'web running again after the reboot',
      180_000,
    );
  }, 420_000);
});

describe('a tier whose process was killed', () => {
  it('is taken away by `npm run nodes -- down`, leaving nothing behind', async () => {
    // beside the running tier's names the killed one would clash: this runs after it stopped
    await tier.stop();
    tier = undefined as unknown as RealNodeTier;
    const up = spawn('npx', ['tsx', 'testenv/nodes/cli.ts', 'up', '--nodes', '1', '--zones', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    up.stdout.on('data', (d) => (out += d));
    up.stderr.on('data', (d) => (out += d));
    await eventually(() => /up in \d+ s/.test(out) || up.exitCode !== null, 'the tier up', 240_000);
    expect(out).toMatch(/up in \d+ s/);
    // every process of the tool's tree at once, as an OOM kill or a closed terminal would
    execFileSync('pkill', ['-KILL', '-f', 'testenv/nodes/cli.ts up']);
    await eventually(() => up.exitCode !== null || up.signalCode !== null, 'the tool gone', 30_000);
    expect(leftovers().length).toBeGreaterThan(0);
    execFileSync('npx', ['tsx', 'testenv/nodes/cli.ts', 'down'], { encoding: 'utf8', timeout: 120_000 });
    expect(leftovers()).toEqual([]);
  }, 420_000);
});
