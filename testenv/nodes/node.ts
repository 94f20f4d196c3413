// One real node: a network namespace, a mount namespace of its own (its boot ID and machine ID
// bound over the machine's), and in them containerd, the kubelet and kube-proxy, every process
// below the node's cgroup folder. Power off kills all of them at once (containers included);
// power on starts them again on the same disk with a new boot ID, as a rebooted machine would.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GuardedProcess } from '../../sim/real/process.js';
import {
  cgroupDown,
  cgroupUp,
  heal,
  joinCgroupScript,
  killNode,
  nodeProcesses,
  partition,
  run,
} from './host.js';
import {
  type NodePlan,
  cniConflist,
  containerdConfig,
  containerdSocket,
  kubeProxyArgs,
  kubeletArgs,
  kubeletConfig,
} from './plan.js';

export interface NodeBinaries {
  kubelet: string;
  kubeProxy: string;
}

export interface NodeCredentials {
  caFile: string;
  /** the kubelet's kubeconfig (system:node:<name>) and kube-proxy's */
  kubeletKubeconfig: string;
  proxyKubeconfig: string;
}

type Power = 'on' | 'off';

const IMPORT_TIMEOUT_MS = 10 * 60_000;

export class RealNode {
  private holder?: GuardedProcess;
  private containerd?: GuardedProcess;
  private kubelet?: GuardedProcess;
  private proxy?: GuardedProcess;
  private power: Power = 'off';
  /** the boot ID the node came up with last (a power cycle changes it) */
  bootId = '';

  constructor(
    readonly plan: NodePlan,
    private readonly bins: NodeBinaries,
    private readonly creds: NodeCredentials,
    /** OCI archives imported into containerd once, before the kubelet starts */
    private readonly images: string[],
    private readonly log: (m: string) => void = () => undefined,
  ) {}

  get name() {
    return this.plan.name;
  }

  get on() {
    return this.power === 'on';
  }

  /** Boot: a new boot ID, the daemons up, the images in containerd; not waiting for Ready. */
  async powerOn() {
    if (this.power === 'on') return;
    const n = this.plan;
    // memory does not survive a power cycle; the disk does
    rmSync(n.run, { recursive: true, force: true });
    for (const d of [n.run, n.disk, join(n.disk, 'cni'), join(n.disk, 'pod-logs')])
      mkdirSync(d, { recursive: true });
    cgroupUp(n);
    this.bootId = randomUUID();
    writeFileSync(join(n.run, 'boot_id'), `${this.bootId}\n`);
    const machineId = join(n.disk, 'machine-id');
    if (!existsSync(machineId)) writeFileSync(machineId, `${randomUUID().replaceAll('-', '')}\n`);
    writeFileSync(join(n.disk, 'containerd.toml'), containerdConfig(n));
    writeFileSync(join(n.disk, 'cni', '10-pods.conflist'), cniConflist(n));
    writeFileSync(
      join(n.disk, 'kubelet.yaml'),
      kubeletConfig(n, { caFile: this.creds.caFile, kubeconfig: '' }),
    );

    // the holder keeps the node's mount namespace: slave, so the machine's mounts (cgroupfs,
    // /run/netns) show inside and nothing the node mounts leaks out
    const mounts = [
      `mount --bind ${join(n.run, 'boot_id')} /proc/sys/kernel/random/boot_id`,
      `mount --bind ${machineId} /etc/machine-id`,
      'exec sleep infinity',
    ].join(' && ');
    this.holder = this.spawn('holder', [
      'exec',
      'nsenter',
      `--net=/run/netns/${n.netns}`,
      'unshare',
      '--mount',
      '--propagation',
      'slave',
      'bash',
      '-c',
      mounts,
    ]);
    // the holder is `sleep infinity` once its mounts are bound
    await this.until(() => this.holderPid() !== undefined, 'its mount namespace');
    this.power = 'on';
    this.containerd = this.inNode('containerd', ['containerd', '--config', join(n.disk, 'containerd.toml')]);
    await this.until(() => this.ctr(['version'], true) !== '', 'containerd');
    await this.importImages();
    this.kubelet = this.startKubelet();
    this.proxy = this.inNode('kube-proxy', [
      this.bins.kubeProxy,
      ...kubeProxyArgs(n, this.creds.proxyKubeconfig),
    ]);
    this.log(`${n.name}: powered on (boot ID ${this.bootId})`);
  }

  /** Every process of the node killed at once, containers included; its memory gone. */
  async powerOff() {
    if (this.power === 'off' && !this.holder) return;
    this.power = 'off';
    await killNode(this.plan);
    await Promise.all([this.holder, this.containerd, this.kubelet, this.proxy].map((p) => p?.stop(1_000)));
    this.holder = this.containerd = this.kubelet = this.proxy = undefined;
    cgroupDown(this.plan);
    rmSync(this.plan.run, { recursive: true, force: true });
    this.log(`${this.name}: powered off`);
  }

  /** The kubelet dies (SIGKILL); containerd and the containers go on. */
  async crashKubelet() {
    const pid = this.kubeletPid();
    if (pid) process.kill(pid, 'SIGKILL');
    await this.kubelet?.stop(1_000);
    this.kubelet = undefined;
  }

  restartKubelet() {
    if (this.power !== 'on') throw new Error(`${this.name} is powered off`);
    if (!this.kubelet?.running) this.kubelet = this.startKubelet();
  }

  partition() {
    partition(this.plan);
  }

  heal() {
    heal(this.plan);
  }

  /** ctr against this node's containerd (namespace k8s.io, where the CRI keeps pods) */
  ctr(args: string[], allowFail = false, timeoutMs?: number): string {
    return run('ctr', ['--address', containerdSocket(this.plan), '--namespace', 'k8s.io', ...args], {
      allowFail,
      timeoutMs,
    });
  }

  /** every process the node runs now (daemons and containers) */
  processes(): number[] {
    return nodeProcesses(this.plan);
  }

  /** the kubelet's own pid (not its guard's) */
  kubeletPid(): number | undefined {
    return this.processes().find((pid) => cmdline(pid).startsWith(this.bins.kubelet));
  }

  private startKubelet() {
    const n = this.plan;
    const inputs = { caFile: this.creds.caFile, kubeconfig: this.creds.kubeletKubeconfig };
    return this.inNode('kubelet', [
      this.bins.kubelet,
      ...kubeletArgs(n, inputs, join(n.disk, 'kubelet.yaml')),
    ]);
  }

  /** import an OCI archive whose index names its image (io.containerd.image.name) in full */
  importArchive(archive: string) {
    // Palisade's image is 190 MB: unpacking it took past 30 s on CI's loaded machine
    this.ctr(['images', 'import', archive], false, IMPORT_TIMEOUT_MS);
  }

  private async importImages() {
    const have = this.ctr(['images', 'ls', '-q']);
    for (const archive of this.images) {
      const digest = readFileSync(`${archive}.ref`, 'utf8').trim();
      if (have.includes(digest)) continue;
      this.ctr(['images', 'import', archive], false, IMPORT_TIMEOUT_MS);
    }
  }

  private holderPid(): number | undefined {
    return this.processes().find((pid) => cmdline(pid).startsWith('sleep\0infinity'));
  }

  /** a daemon in the node: its cgroup, its network and mount namespaces (the holder's) */
  private inNode(name: string, argv: string[]) {
    const pid = this.holderPid();
    if (!pid) throw new Error(`${this.name}: powered off`);
    return this.spawn(name, ['exec', 'nsenter', `--target=${pid}`, '--net', '--mount', '--', ...argv]);
  }

  private spawn(name: string, argv: string[]) {
    const script = `${joinCgroupScript(this.plan)}; ${argv.map(quote).join(' ')}`;
    return new GuardedProcess(`${this.name}-${name}`, 'bash', ['-c', script], join(this.plan.disk, '..'));
  }

  private async until(ok: () => boolean, what: string, ms = 60_000) {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`${this.name}: ${what} not up in ${ms / 1000} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const quote = (s: string) =>
  s === 'exec' || /^[\w./=:,@+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
